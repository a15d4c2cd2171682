package dev.agentrt.toolrunner.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ToolboxTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** A search_docs that echoes its arguments, or fails as told. */
  private static Tool searchThat(java.util.function.Function<JsonNode, String> body) {
    return new Tool() {
      @Override
      public String name() {
        return "search_docs";
      }

      @Override
      public String execute(JsonNode arguments) {
        return body.apply(arguments);
      }
    };
  }

  private final Toolbox toolbox = new Toolbox(List.of(searchThat(JsonNode::toString)));

  private static ToolOutcome.Failure failure(ToolOutcome outcome) {
    assertThat(outcome).isInstanceOf(ToolOutcome.Failure.class);
    return (ToolOutcome.Failure) outcome;
  }

  @Test
  void runsAToolOnArgumentsThatSatisfyItsSchema() {
    assertThat(toolbox.run("search_docs", "{\"query\":\"kafka\",\"limit\":2}"))
        .isEqualTo(new ToolOutcome.Success("{\"query\":\"kafka\",\"limit\":2}"));
  }

  @Test
  void anUnknownToolFailsNamingTheToolsThereAre() {
    ToolOutcome.Failure failure = failure(toolbox.run("launch_rockets", "{}"));

    assertThat(failure.errorType()).isEqualTo(ErrorType.unknown_tool);
    assertThat(failure.message()).contains("launch_rockets").contains("search_docs");
  }

  @Test
  void argumentsBreakingTheSchemaFailNamingTheField() {
    assertThat(failure(toolbox.run("search_docs", "{}")).message()).contains("'query'");
    assertThat(failure(toolbox.run("search_docs", "")).message()).contains("'query'");
    assertThat(failure(toolbox.run("search_docs", "{\"query\":\"x\",\"limit\":0}")).message())
        .contains("'limit'");
    assertThat(failure(toolbox.run("search_docs", "{\"query\":\"x\",\"paths\":[]}")).message())
        .contains("paths");
    assertThat(failure(toolbox.run("search_docs", "{\"query\":7}")).message()).contains("'query'");
    assertThat(failure(toolbox.run("search_docs", "[1]")).errorType())
        .isEqualTo(ErrorType.invalid_arguments);
  }

  @Test
  void argumentsThatAreNotJsonFailAsInvalid() {
    ToolOutcome.Failure failure = failure(toolbox.run("search_docs", "query=kafka"));

    assertThat(failure.errorType()).isEqualTo(ErrorType.invalid_arguments);
    assertThat(failure.message()).startsWith("arguments are not JSON");
  }

  @Test
  void aToolsOwnFailureKeepsItsTypeAndAnyOtherBecomesAToolError() {
    Toolbox notFound =
        new Toolbox(
            List.of(
                searchThat(
                    a -> {
                      throw new ToolException(ErrorType.not_found, "nothing there");
                    })));
    Toolbox broken =
        new Toolbox(
            List.of(
                searchThat(
                    a -> {
                      throw new IllegalStateException("disk on fire");
                    })));

    assertThat(notFound.run("search_docs", "{\"query\":\"x\"}"))
        .isEqualTo(new ToolOutcome.Failure(ErrorType.not_found, "nothing there"));
    assertThat(broken.run("search_docs", "{\"query\":\"x\"}"))
        .isEqualTo(new ToolOutcome.Failure(ErrorType.tool_error, "disk on fire"));
  }

  @Test
  void aFailureReadsAsStructuredJson() {
    assertThat(JSON.readTree(new ToolOutcome.Failure(ErrorType.timeout, "too \"slow\"").json()))
        .isEqualTo(JSON.readTree("{\"error_type\":\"timeout\",\"message\":\"too \\\"slow\\\"\"}"));
  }

  @Test
  void everyToolMustBeDeclaredInTheCatalog() {
    Tool undeclared =
        new Tool() {
          @Override
          public String name() {
            return "undeclared";
          }

          @Override
          public String execute(JsonNode arguments) {
            return "{}";
          }
        };

    assertThatThrownBy(() -> new Toolbox(List.of(undeclared)))
        .hasMessageContaining("undeclared is not declared in ToolCatalog");
  }
}
