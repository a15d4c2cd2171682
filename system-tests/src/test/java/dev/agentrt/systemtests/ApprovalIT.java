package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.core.ConditionTimeoutException;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Tool approval end to end on the offline model: "Save a note: …" starts the scribe, whose {@code
 * write_note} call waits for the person. Approved — even twice at once, with tool-runner killed
 * between the approval and the run or while it writes the note, with agent-loop killed while the
 * call waits, or with the orchestrator and agent-loop killed right after the decision is stored —
 * the note is written exactly once and the run finishes with its path; rejected, the call never
 * reaches tool-runner and the model answers with the reason. An OpenAI-compatible client gets the
 * approval request as its reply and approves with its next message.
 */
class ApprovalIT {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);

  @TempDir static Path dataDir;

  private static Path notes;
  private static OfflineModelStack stack;
  private static RunningServices services;
  private static ChatApi api;

  @BeforeAll
  static void startStack() throws IOException {
    notes = Files.createDirectories(dataDir.resolve("notes"));
    stack =
        OfflineModelStack.start(
            "approval",
            dataDir,
            Duration.ZERO,
            Map.of("AGENTRT_TOOLS_NOTES_ROOT", notes.toString()));
    services = stack.services;
    api = new ChatApi(services.baseUrl("orchestrator"));
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void anApprovalPostedTwiceAtOnceRunsTheCallOnceAndTheRunFinishes() throws Exception {
    String chatId = api.createChat();
    String toolCallId = approvalRequested(chatId, "Save a note: twice clicked approval");
    assertThat(notesNamed("twice-clicked-approval")).as("nothing runs before a decision").isEmpty();

    CyclicBarrier together = new CyclicBarrier(2);
    List<Future<ChatApi.Response>> decisions = new ArrayList<>();
    try (ExecutorService two = Executors.newFixedThreadPool(2)) {
      for (int i = 0; i < 2; i++) {
        decisions.add(
            two.submit(
                () -> {
                  together.await();
                  return decide(chatId, toolCallId, true, null);
                }));
      }
    }
    List<Integer> statuses = new ArrayList<>();
    for (Future<ChatApi.Response> decision : decisions) {
      statuses.add(decision.get().status());
    }
    assertThat(statuses).containsExactlyInAnyOrder(202, 409);

    String answer = finalAnswer(chatId);
    List<Path> written = notesNamed("twice-clicked-approval");
    assertThat(written).as("written exactly once").hasSize(1);
    assertThat(answer).isEqualTo("Saved the note " + written.getFirst() + ".");
    assertThat(Files.readString(written.getFirst(), StandardCharsets.UTF_8))
        .contains("twice clicked approval");
    assertThat(task(chatId).getString("status")).isEqualTo("success");
    assertThat(ledgerTypes(chatId)).contains("approval_requested", "approval_decided");
  }

  @Test
  void aRejectedCallNeverReachesToolRunnerAndTheModelReadsWhy() {
    String chatId = api.createChat();
    String toolCallId = approvalRequested(chatId, "Save a note: rejected thought");

    assertThat(decide(chatId, toolCallId, false, "not worth keeping").status()).isEqualTo(202);

    assertThat(finalAnswer(chatId)).isEqualTo("I did not save the note: not worth keeping.");
    assertThat(notesNamed("rejected-thought")).isEmpty();
    Document call = toolCall(toolCallId);
    assertThat(call.getString("status")).isEqualTo("failed");
    assertThat(call.containsKey("latencyMs")).as("no tool-runner recorded a run").isFalse();
    assertThat(toolCallRequests()).as("never announced to tool-runner").doesNotContain(toolCallId);
    assertThat(decide(chatId, toolCallId, true, null).status())
        .as("a decision after the rejection")
        .isEqualTo(409);
  }

  @Test
  void toolRunnerKilledBetweenTheApprovalAndTheRunWritesTheNoteOnce() {
    String chatId = api.createChat();
    String toolCallId = approvalRequested(chatId, "Save a note: survives a crash");

    services.kill("tool-runner");
    assertThat(decide(chatId, toolCallId, true, null).status()).isEqualTo(202);
    assertThat(toolCall(toolCallId).getString("status"))
        .as("the decision is stored; nothing ran it")
        .isEqualTo("pending");
    services.startAgain("tool-runner");

    String answer = finalAnswer(chatId);
    List<Path> written = notesNamed("survives-a-crash");
    assertThat(written).as("written exactly once").hasSize(1);
    assertThat(answer).isEqualTo("Saved the note " + written.getFirst() + ".");
    assertThat(toolCall(toolCallId).getString("status")).isEqualTo("success");
  }

  @Test
  void agentLoopKilledWhileTheCallAwaitsApprovalFinishesTheRunWithTheNoteWrittenOnce() {
    String chatId = api.createChat();
    String toolCallId = approvalRequested(chatId, "Save a note: outlives the agent loop");

    services.kill("agent-loop");
    assertThat(decide(chatId, toolCallId, true, null).status()).isEqualTo(202);
    await()
        .atMost(RUN_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> toolCall(toolCallId).getString("status").equals("success"));
    services.startAgain("agent-loop");

    String answer = finalAnswer(chatId);
    List<Path> written = notesNamed("outlives-the-agent-loop");
    assertThat(written).as("written exactly once").hasSize(1);
    assertThat(answer).isEqualTo("Saved the note " + written.getFirst() + ".");
  }

  @Test
  void orchestratorAndAgentLoopKilledRightAfterTheDecisionIsStoredLoseNothing() {
    String chatId = api.createChat();
    String toolCallId = approvalRequested(chatId, "Save a note: decided then crashed");

    assertThat(decide(chatId, toolCallId, true, null).status()).isEqualTo(202);
    services.kill("orchestrator");
    services.kill("agent-loop");
    Document decision = toolCall(toolCallId).get("decision", Document.class);
    assertThat(decision).as("the decision is stored").isNotNull();
    assertThat(decision.getBoolean("approved")).isTrue();
    await()
        .atMost(RUN_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> toolCall(toolCallId).getString("status").equals("success"));
    services.startAgain("agent-loop");
    services.startAgain("orchestrator");

    String answer = finalAnswer(chatId);
    List<Path> written = notesNamed("decided-then-crashed");
    assertThat(written).as("written exactly once").hasSize(1);
    assertThat(answer).isEqualTo("Saved the note " + written.getFirst() + ".");
    assertThat(ledgerTypes(chatId).stream().filter("approval_decided"::equals))
        .as("the decision in the ledger, once")
        .hasSize(1);
    assertThat(answers(chatId)).as("one answer").isOne();
  }

  /**
   * tool-runner killed as soon as the call leaves {@code pending}: while it is {@code running}
   * (write_note under way; the restarted runner takes it up when its lease expires and runs it
   * again, finding the note its first run may have written), or later (recorded, not yet answered).
   * The instant varies from run to run; whichever it is, the note is written once.
   */
  @Test
  void toolRunnerKilledWhileItWritesTheNoteWritesItOnce() {
    String chatId = api.createChat();
    String toolCallId = approvalRequested(chatId, "Save a note: written through a crash");

    assertThat(decide(chatId, toolCallId, true, null).status()).isEqualTo(202);
    String seen =
        await()
            .atMost(RUN_TIMEOUT)
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(1))
            .until(() -> toolCall(toolCallId).getString("status"), s -> !s.equals("pending"));
    services.kill("tool-runner");
    System.out.printf(
        "TOOL-RUNNER KILLED: the write_note call was %s when seen, %s after the kill%n",
        seen, toolCall(toolCallId).getString("status"));
    services.startAgain("tool-runner");

    String answer = finalAnswer(chatId);
    List<Path> written = notesNamed("written-through-a-crash");
    assertThat(written).as("written exactly once").hasSize(1);
    assertThat(answer).isEqualTo("Saved the note " + written.getFirst() + ".");
    assertThat(toolCall(toolCallId).getString("status")).isEqualTo("success");
    assertThat(answers(chatId)).as("one answer").isOne();
    assertThat(stack.toolResultsPerCall()).allSatisfy((call, n) -> assertThat(n).isOne());
  }

  @Test
  void anOpenAiClientGetsTheApprovalRequestAsTheReplyAndApprovesWithItsNextMessage() {
    String note = "Save a note: asked over the openai api";
    ChatApi.Response asked = complete(List.of("user", note));
    assertThat(asked.status()).isEqualTo(200);
    String request = replyOf(asked);
    assertThat(request).startsWith("The Scribe asks to run write_note with ");

    ChatApi.Response approved =
        complete(List.of("user", note, "assistant", request, "user", "approve"));

    assertThat(approved.status()).isEqualTo(200);
    assertThat(approved.body().path("chat_id").asString())
        .as("the same chat, found by its history")
        .isEqualTo(asked.body().path("chat_id").asString());
    List<Path> written = notesNamed("asked-over-the-openai-api");
    assertThat(written).hasSize(1);
    assertThat(replyOf(approved)).isEqualTo("Saved the note " + written.getFirst() + ".");
  }

  /** A /v1 chat completion of these messages, given as role, content, role, content, … */
  private static ChatApi.Response complete(List<String> rolesAndContents) {
    var body = tools.jackson.databind.json.JsonMapper.builder().build().createObjectNode();
    var messages = body.put("model", "agentrt").putArray("messages");
    for (int i = 0; i < rolesAndContents.size(); i += 2) {
      messages
          .addObject()
          .put("role", rolesAndContents.get(i))
          .put("content", rolesAndContents.get(i + 1));
    }
    return api.post("/v1/chat/completions", body.toString());
  }

  private static String replyOf(ChatApi.Response completion) {
    return completion.body().path("choices").path(0).path("message").path("content").asString();
  }

  /** Posts the message and returns the call the notifier's approval request asks about. */
  private static String approvalRequested(String chatId, String message) {
    assertThat(api.postMessage(chatId, message).status()).isEqualTo(202);
    return await()
        .atMost(RUN_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> messageWith(chatId, "toolCallId"), found -> found != null)
        .path("toolCallId")
        .asString();
  }

  private static ChatApi.Response decide(
      String chatId, String toolCallId, boolean approved, String reason) {
    String body =
        "{\"type\":\"approval\",\"toolCallId\":\""
            + toolCallId
            + "\",\"approved\":"
            + approved
            + (reason == null ? "" : ",\"reason\":\"" + reason + "\"")
            + "}";
    return api.post("/api/chats/" + chatId + "/feedback", body);
  }

  /** The finalizer's answer: the chat's last assistant message linked to the task. */
  private static String finalAnswer(String chatId) {
    try {
      await()
          .atMost(RUN_TIMEOUT)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> List.of("success", "failed").contains(task(chatId).getString("status")));
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("the run did not end; what is stored: " + runState(chatId), e);
    }
    return await()
        .atMost(RUN_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              JsonNode last = null;
              for (JsonNode m : api.get("/api/chats/" + chatId + "/messages").body()) {
                if (m.path("role").asString().equals("assistant")
                    && m.path("taskId").isString()
                    && !m.path("toolCallId").isString()) {
                  last = m;
                }
              }
              return last == null ? null : last.path("content").asString();
            },
            answer -> answer != null);
  }

  /** The finalizer's answers in the chat (the approval request, linked to its call, left out). */
  private static long answers(String chatId) {
    return stack.answers().stream()
        .filter(m -> m.getString("chatId").equals(chatId) && m.get("toolCallId") == null)
        .count();
  }

  private static JsonNode messageWith(String chatId, String field) {
    for (JsonNode m : api.get("/api/chats/" + chatId + "/messages").body()) {
      if (m.path(field).isString()) {
        return m;
      }
    }
    return null;
  }

  private static List<Path> notesNamed(String prefix) {
    try (Stream<Path> files = Files.list(notes)) {
      return files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Document task(String chatId) {
    return stack.db().getCollection("tasks").find(Filters.eq("chatId", chatId)).first();
  }

  /**
   * The chat's task, sub-agents and tool calls as stored, with its ledger: what a failure shows.
   */
  private static String runState(String chatId) {
    Map<String, Object> state = new java.util.LinkedHashMap<>();
    state.put("task", task(chatId));
    for (String collection : List.of("sub_agents", "sub_agent_tool_calls")) {
      state.put(
          collection,
          stack
              .db()
              .getCollection(collection)
              .find(Filters.eq("chatId", chatId))
              .projection(Projections.exclude("outbox", "input", "arguments"))
              .into(new ArrayList<>()));
    }
    state.put("ledger", ledgerTypes(chatId));
    return state.toString();
  }

  private static Document toolCall(String id) {
    return stack.db().getCollection("sub_agent_tool_calls").find(Filters.eq("_id", id)).first();
  }

  private static List<String> ledgerTypes(String chatId) {
    return stack
        .db()
        .getCollection("run_events")
        .find(Filters.eq("chatId", chatId))
        .into(new ArrayList<>())
        .stream()
        .map(e -> e.getString("type"))
        .toList();
  }

  /** The tool-call ids of every ToolCallRequested on the topic so far. */
  private static List<String> toolCallRequests() {
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of("bootstrap.servers", stack.kafka.bootstrapServers()),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor("agentrt.tool-calls").stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      List<String> ids = new ArrayList<>();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          String payload = new String(record.value(), StandardCharsets.UTF_8);
          ids.add(payload.replaceAll(".*\"toolCallId\":\"([^\"]+)\".*", "$1"));
        }
      }
      return ids;
    }
  }
}
