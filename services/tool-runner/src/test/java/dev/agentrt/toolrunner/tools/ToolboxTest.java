package dev.agentrt.toolrunner.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ToolboxTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static final ToolSettings SETTINGS = ToolSettings.defaults(Duration.ofSeconds(30));
  private static final String SEARCH_SCHEMA =
      """
      {"type":"object","required":["query"],"additionalProperties":false,
       "properties":{"query":{"type":"string","minLength":1},
                     "limit":{"type":"integer","minimum":1,"maximum":20}}}""";

  /** A search_docs that echoes its arguments, or fails as told. */
  private static Tool searchThat(Function<JsonNode, String> body) {
    return tool("search_docs", null, body);
  }

  private static Tool tool(String name, String outputSchema, Function<JsonNode, String> body) {
    return new Tool() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return name + " for tests";
      }

      @Override
      public String inputSchema() {
        return SEARCH_SCHEMA;
      }

      @Override
      public String outputSchema() {
        return outputSchema;
      }

      @Override
      public String execute(JsonNode arguments) {
        return body.apply(arguments);
      }
    };
  }

  private final Toolbox toolbox = Toolbox.of(List.of(searchThat(JsonNode::toString)), SETTINGS);

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
        Toolbox.of(
            List.of(
                searchThat(
                    a -> {
                      throw new ToolException(ErrorType.not_found, "nothing there");
                    })),
            SETTINGS);
    Toolbox broken =
        Toolbox.of(
            List.of(
                searchThat(
                    a -> {
                      throw new IllegalStateException("disk on fire");
                    })),
            SETTINGS);

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
  void aResultBreakingTheDeclaredOutputSchemaFailsAsInvalidOutput() {
    String schema =
        "{\"type\":\"object\",\"required\":[\"n\"],\"properties\":{\"n\":{\"type\":\"number\"}}}";
    Toolbox box =
        Toolbox.of(
            List.of(
                tool("good", schema, a -> "{\"n\":1}"),
                tool("bad", schema, a -> "{\"n\":\"one\"}"),
                tool("text", schema, a -> "one")),
            SETTINGS);

    assertThat(box.run("good", "{\"query\":\"x\"}"))
        .isEqualTo(new ToolOutcome.Success("{\"n\":1}"));
    ToolOutcome.Failure bad = failure(box.run("bad", "{\"query\":\"x\"}"));
    assertThat(bad.errorType()).isEqualTo(ErrorType.invalid_output);
    assertThat(bad.message()).contains("bad").contains("'n'");
    assertThat(failure(box.run("text", "{\"query\":\"x\"}")).errorType())
        .isEqualTo(ErrorType.invalid_output);
  }

  @Test
  void askUserIsInTheRegistryButNeverRunHere() {
    Toolbox box =
        new Toolbox(
            List.of(
                new RuntimeTools(), new BuiltInTools(List.of(searchThat(a -> "{}")), SETTINGS)));

    assertThat(box.names()).containsExactly("ask_user", "search_docs");
    assertThat(box.find("ask_user").orElseThrow().handledByRuntime()).isTrue();
    assertThat(failure(box.run("ask_user", "{\"question\":\"?\"}")).errorType())
        .isEqualTo(ErrorType.unknown_tool);
  }

  @Test
  void aSourceThatChangesIsReadAgainAndListenersAreTold() {
    List<RegisteredTool> offered = new java.util.concurrent.CopyOnWriteArrayList<>();
    Runnable[] changed = new Runnable[1];
    ToolSource source =
        new ToolSource() {
          @Override
          public List<RegisteredTool> tools() {
            return List.copyOf(offered);
          }

          @Override
          public void onChange(Runnable listener) {
            changed[0] = listener;
          }
        };
    Toolbox box = new Toolbox(List.of(source));
    List<List<String>> seen = new java.util.ArrayList<>();
    box.onChange(() -> seen.add(box.names()));

    offered.addAll(new BuiltInTools(List.of(searchThat(a -> "{}")), SETTINGS).tools());
    changed[0].run();

    assertThat(seen).containsExactly(List.of("search_docs"));
    assertThat(box.run("search_docs", "{\"query\":\"x\"}"))
        .isEqualTo(new ToolOutcome.Success("{}"));
  }

  @Test
  void ofTwoToolsWithOneNameTheFirstSourceWins() {
    Toolbox box =
        new Toolbox(
            List.of(
                new BuiltInTools(List.of(searchThat(a -> "{\"first\":true}")), SETTINGS),
                new BuiltInTools(List.of(searchThat(a -> "{\"second\":true}")), SETTINGS)));

    assertThat(box.run("search_docs", "{\"query\":\"x\"}"))
        .isEqualTo(new ToolOutcome.Success("{\"first\":true}"));
  }

  @Test
  void perToolOverridesSetTimeoutAndIdempotency() {
    ToolSettings settings =
        new ToolSettings(
            Duration.ofSeconds(30),
            java.util.Map.of(
                "search_docs", new ToolSettings.Override(Duration.ofSeconds(90), false, null)));
    RegisteredTool search =
        new BuiltInTools(List.of(searchThat(a -> "{}"), tool("other", null, a -> "{}")), settings)
            .tools()
            .getFirst();

    assertThat(search.timeout()).isEqualTo(Duration.ofSeconds(90));
    assertThat(search.idempotent()).isFalse();
    assertThat(
            Toolbox.of(List.of(tool("other", null, a -> "{}")), settings)
                .find("other")
                .orElseThrow()
                .timeout())
        .isEqualTo(Duration.ofSeconds(30));
  }
}
