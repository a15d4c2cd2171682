package dev.agentrt.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.agentrt.model.ModelReply.Usage;
import dev.agentrt.model.ModelRequest.Purpose;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class ModelRouterTest {

  private final ModelRouter router =
      new ModelRouter(
          Map.of("gpt", answering("from gpt"), "claude", answering("from claude")), "gpt");

  @Test
  void sendsARequestToTheModelItNames() {
    assertThat(router.complete(request("claude")).content()).isEqualTo("from claude");
  }

  @Test
  void sendsARequestWithoutAModelNameToTheDefault() {
    assertThat(router.complete(request(null)).content()).isEqualTo("from gpt");
  }

  @Test
  void refusesAnUnknownModelNamingTheConfiguredOnes() {
    ModelException failure =
        catchThrowableOfType(ModelException.class, () -> router.complete(request("llama")));

    assertThat(failure.transientFailure()).isFalse();
    assertThat(failure.getMessage()).isEqualTo("unknown model 'llama'; configured: [claude, gpt]");
  }

  @Test
  void knowsTheConfiguredNames() {
    assertThat(router.names()).containsExactly("claude", "gpt");
    assertThat(router.knows("claude")).isTrue();
    assertThat(router.knows(null)).as("the default").isTrue();
    assertThat(router.knows("llama")).isFalse();
    assertThat(router.defaultModel()).isEqualTo("gpt");
  }

  @Test
  void needsTheDefaultAmongTheModels() {
    assertThatThrownBy(() -> new ModelRouter(Map.of("gpt", answering("x")), "claude"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("default model 'claude' is not among [gpt]");
  }

  private static ModelRequest request(@Nullable String model) {
    return new ModelRequest(
        Purpose.FINAL_ANSWER, List.of(ModelMessage.user("hi")), List.of(), null, model);
  }

  private static ModelPort answering(String content) {
    return request -> new ModelReply(content, List.of(), new Usage(1, 1), "stop", 0);
  }
}
