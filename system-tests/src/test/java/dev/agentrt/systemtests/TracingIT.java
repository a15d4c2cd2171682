package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.systemtests.OtlpReceiver.ReceivedSpan;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The six services export their spans over OTLP (the standard {@code OTEL_EXPORTER_OTLP_ENDPOINT})
 * to a receiver in this test. One person's message is one trace across the services and the Kafka
 * hops between them: "Research" (the researcher asks a question: orchestrator, agent-init,
 * agent-loop, notifier) and then "Kafka" (the answer, which resumes it: orchestrator, agent-loop,
 * tool-runner, finalizer). Each trace has one root, the person's request, and every other span's
 * parent is in it; the agent's turn, its model calls and its tool calls are GenAI spans.
 */
class TracingIT {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);

  @TempDir static Path dataDir;

  private static OtlpReceiver receiver;
  private static OfflineModelStack stack;

  @BeforeAll
  static void startStack() {
    receiver = new OtlpReceiver();
    stack =
        OfflineModelStack.start(
            "tracing",
            dataDir,
            Duration.ZERO,
            Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                receiver.endpoint(),
                "OTEL_BSP_SCHEDULE_DELAY",
                "100"));
  }

  @AfterAll
  static void stopStack() {
    try (var s = stack;
        var r = receiver) {
      // both closed, the stack first
    }
  }

  @Test
  void eachMessageIsOneTraceAcrossTheServicesWithGenAiSpans() {
    ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));
    String chat = api.createChat();
    assertThat(api.postMessage(chat, "Research").status()).isEqualTo(202);
    await().atMost(RUN_TIMEOUT).until(() -> assistantMessages(api, chat) == 1); // the question
    assertThat(api.postMessage(chat, "Kafka").status()).isEqualTo(202);
    await().atMost(RUN_TIMEOUT).until(() -> assistantMessages(api, chat) == 2); // the answer

    Set<String> asking = Set.of("orchestrator", "agent-init", "agent-loop", "notifier");
    Set<String> answering = Set.of("orchestrator", "agent-loop", "tool-runner", "finalizer");
    // Spans are exported in batches after they end: wait until both traces are whole.
    await()
        .atMost(RUN_TIMEOUT)
        .untilAsserted(
            () -> {
              List<List<ReceivedSpan>> traces = messageTraces(chat);
              assertThat(traces).as(() -> describe(receiver.spans())).hasSize(2);
              assertWhole(traces.get(0), asking);
              assertWhole(traces.get(1), answering);
            });

    List<List<ReceivedSpan>> traces = messageTraces(chat);
    List<ReceivedSpan> question = traces.get(0);
    List<ReceivedSpan> answer = traces.get(1);
    for (List<ReceivedSpan> trace : traces) {
      assertThat(trace.stream().filter(ReceivedSpan::isRoot))
          .as("one root, the person's request: %s", describe(trace))
          .singleElement()
          .satisfies(root -> assertThat(root.name()).startsWith("http post"));
    }
    assertThat(question).noneMatch(s -> s.name().startsWith("execute_tool"));
    assertThat(answer)
        .filteredOn(s -> s.name().equals("invoke_agent researcher"))
        .isNotEmpty()
        .allSatisfy(
            s ->
                assertThat(s.attributes())
                    .containsEntry("gen_ai.agent.name", "researcher")
                    .containsEntry("gen_ai.conversation.id", chat)
                    .containsEntry("gen_ai.operation.name", "invoke_agent"));
    assertThat(answer)
        .filteredOn(s -> s.name().startsWith("chat ") && s.service().equals("agent-loop"))
        .isNotEmpty()
        .allSatisfy(
            s ->
                assertThat(s.attributes())
                    .containsEntry("gen_ai.operation.name", "chat")
                    .containsEntry("gen_ai.provider.name", "offline")
                    .containsKeys(
                        "gen_ai.request.model",
                        "gen_ai.usage.input_tokens",
                        "gen_ai.usage.output_tokens",
                        "gen_ai.response.finish_reasons"));
    assertThat(answer)
        .filteredOn(s -> s.name().equals("execute_tool search_docs"))
        .singleElement()
        .satisfies(
            s ->
                assertThat(s.attributes())
                    .containsEntry("gen_ai.tool.name", "search_docs")
                    .containsEntry("gen_ai.conversation.id", chat)
                    .containsEntry("agentrt.outcome", "success")
                    .containsKey("gen_ai.tool.call.id"));
    assertThat(question.stream().map(ReceivedSpan::name))
        .as("the decision's model call is in the person's trace too")
        .anyMatch(name -> name.startsWith("chat "));
  }

  private static int assistantMessages(ChatApi api, String chat) {
    int n = 0;
    for (JsonNode message : api.get("/api/chats/" + chat + "/messages").body()) {
      if ("assistant".equals(message.path("role").asString())) {
        n++;
      }
    }
    return n;
  }

  /**
   * The traces of the person's messages to the chat, in the order they were posted: each begins
   * with the request that posted it.
   */
  private static List<List<ReceivedSpan>> messageTraces(String chat) {
    List<ReceivedSpan> spans = receiver.spans();
    Set<String> chatTraces =
        spans.stream()
            .filter(s -> chat.equals(s.attributes().get("gen_ai.conversation.id")))
            .map(ReceivedSpan::traceId)
            .collect(Collectors.toSet());
    return spans.stream()
        .filter(
            s ->
                s.isRoot()
                    && s.name().equals("http post /api/chats/{chatId}/messages")
                    && chatTraces.contains(s.traceId()))
        .sorted(Comparator.comparingLong(ReceivedSpan::startNanos))
        .map(root -> spans.stream().filter(s -> s.traceId().equals(root.traceId())).toList())
        .toList();
  }

  /** The trace has spans of all the services, and each span's parent is in it. */
  private static void assertWhole(List<ReceivedSpan> trace, Set<String> services) {
    Set<String> ids = trace.stream().map(ReceivedSpan::spanId).collect(Collectors.toSet());
    assertThat(services(trace)).containsAll(services);
    assertThat(trace)
        .as("spans whose parent is not in the trace")
        .filteredOn(s -> !s.isRoot() && !ids.contains(s.parentSpanId()))
        .isEmpty();
  }

  /** The spans a trace, a line each, to tell what went wrong. */
  private static String describe(List<ReceivedSpan> spans) {
    return spans.stream()
        .map(
            s ->
                s.traceId().substring(0, 8)
                    + " "
                    + s.spanId().substring(0, 8)
                    + " <- "
                    + (s.isRoot() ? "(root)  " : s.parentSpanId().substring(0, 8))
                    + " "
                    + s.service()
                    + ": "
                    + s.name())
        .collect(Collectors.joining("\n"));
  }

  private static Set<String> services(List<ReceivedSpan> trace) {
    return trace.stream().map(ReceivedSpan::service).collect(Collectors.toSet());
  }
}
