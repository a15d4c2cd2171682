package dev.agentrt.model.springai;

import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelRequest.Purpose;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.model.ModelsProperties.Definition;
import dev.agentrt.model.ToolSpec;
import java.time.Duration;
import java.util.List;

/** Requests and model definitions shared by the provider tests. */
final class Conversations {

  static final ToolSpec SEARCH_DOCS =
      new ToolSpec(
          "search_docs",
          "Searches the documents.",
          """
          {"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}""");

  static final String DECISION_SCHEMA =
      """
      {"type":"object","required":["action"],"properties":{"action":{"type":"string"}}}""";

  private Conversations() {}

  /** A researcher's turn after two parallel searches came back. */
  static ModelRequest afterTwoSearches() {
    return afterTwoSearchesSaid(null);
  }

  /** {@link #afterTwoSearches}, where the turn that asked for them also said {@code text}. */
  static ModelRequest afterTwoSearchesSaid(String text) {
    return new ModelRequest(
        Purpose.AGENT_TURN,
        List.of(
            ModelMessage.system("You are a researcher."),
            ModelMessage.user("Research Kafka and MongoDB"),
            ModelMessage.assistant(
                text,
                List.of(
                    new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"),
                    new ModelToolCall("call_2", "search_docs", "{\"query\":\"MongoDB\"}"))),
            ModelMessage.tool("call_1", "kafka.md"),
            ModelMessage.tool("call_2", "mongodb.md")),
        List.of(SEARCH_DOCS),
        null);
  }

  static ModelRequest question(String text) {
    return new ModelRequest(
        Purpose.FINAL_ANSWER, List.of(ModelMessage.user(text)), List.of(), null);
  }

  static ModelRequest decision() {
    return new ModelRequest(
        Purpose.DECISION,
        List.of(ModelMessage.system("Decide."), ModelMessage.user("hi")),
        List.of(),
        DECISION_SCHEMA);
  }

  static Definition openAi(FakeProvider provider, String apiKey, Duration timeout) {
    return new Definition(
        "openai", provider.baseUrl() + "/v1", apiKey, "gpt-test", 0.2, 512, timeout, null);
  }

  static Definition anthropic(FakeProvider provider, Duration timeout) {
    return new Definition(
        "anthropic", provider.baseUrl(), "test-key", "claude-test", null, 1024, timeout, null);
  }
}
