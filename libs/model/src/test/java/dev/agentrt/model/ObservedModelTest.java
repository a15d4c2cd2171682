package dev.agentrt.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A model call's span: its GenAI attributes always, prompts and answers only when switched on. */
class ObservedModelTest {

  private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
  private final ObservationRegistry registry = ObservationRegistry.create();

  {
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler<>() {
              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }

              @Override
              public void onStop(Observation.Context context) {
                stopped.add(context);
              }
            });
  }

  private static final ModelPort ANSWERS =
      request ->
          new ModelReply(
              "Kafka is a log.",
              List.of(new ModelToolCall("call_1", "read_doc", "{\"path\":\"docs/kafka.md\"}")),
              new ModelReply.Usage(12, 5),
              "tool_calls",
              3);

  private static final ModelRequest REQUEST =
      new ModelRequest(
          ModelRequest.Purpose.AGENT_TURN,
          List.of(
              ModelMessage.system("You research."),
              ModelMessage.user("Research Kafka"),
              ModelMessage.assistant(
                  null, List.of(new ModelToolCall("call_0", "search_docs", "{\"query\":\"x\"}"))),
              ModelMessage.tool("call_0", "{\"results\":[]}")),
          List.of(new ToolSpec("read_doc", "Reads a document.", "{\"type\":\"object\"}")),
          null);

  @Test
  void withoutTheSwitchTheSpanCarriesNoPromptAndNoAnswer() {
    new ObservedModel(ANSWERS, "offline", "offline", registry, false).complete(REQUEST);

    Map<String, String> attributes = attributes();
    assertThat(attributes)
        .containsEntry("gen_ai.request.model", "offline")
        .containsEntry("gen_ai.usage.input_tokens", "12")
        .containsEntry("gen_ai.response.finish_reasons", "tool_calls");
    assertThat(attributes.keySet())
        .noneMatch(key -> key.startsWith("gen_ai.input") || key.startsWith("gen_ai.output"))
        .doesNotContain("gen_ai.tool.definitions");
    assertThat(attributes.values()).noneMatch(value -> value.contains("Research Kafka"));
  }

  @Test
  void withTheSwitchTheSpanCarriesTheMessagesAndTheAnswerAsTheConventionsShapeThem() {
    new ObservedModel(ANSWERS, "offline", "offline", registry, true).complete(REQUEST);

    Map<String, String> attributes = attributes();
    assertThat(attributes.get("gen_ai.input.messages"))
        .contains(
            "{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Research Kafka\"}]}")
        .contains(
            "{\"type\":\"tool_call\",\"id\":\"call_0\",\"name\":\"search_docs\","
                + "\"arguments\":\"{\\\"query\\\":\\\"x\\\"}\"}")
        .contains(
            "{\"role\":\"tool\",\"parts\":[{\"type\":\"tool_call_response\",\"id\":\"call_0\","
                + "\"response\":\"{\\\"results\\\":[]}\"}]}");
    assertThat(attributes.get("gen_ai.output.messages"))
        .startsWith(
            "[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"Kafka is a log.\"}")
        .contains("\"name\":\"read_doc\"")
        .endsWith("\"finish_reason\":\"tool_calls\"}]");
    assertThat(attributes.get("gen_ai.tool.definitions"))
        .isEqualTo("[{\"type\":\"function\",\"name\":\"read_doc\"}]");
  }

  @Test
  void aToolCallsContentsGoOnItsSpanAsTheyAre() {
    Observation call = GenAi.executeTool(registry, "read_doc", "tc-1", "chat-1");
    call.observe(() -> GenAi.toolContent(call, "{\"path\":\"docs/kafka.md\"}", "{\"text\":\"…\"}"));

    assertThat(attributes())
        .containsEntry("gen_ai.tool.call.arguments", "{\"path\":\"docs/kafka.md\"}")
        .containsEntry("gen_ai.tool.call.result", "{\"text\":\"…\"}");
  }

  private Map<String, String> attributes() {
    assertThat(stopped).hasSize(1);
    return stopped.getFirst().getAllKeyValues().stream()
        .collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
  }
}
