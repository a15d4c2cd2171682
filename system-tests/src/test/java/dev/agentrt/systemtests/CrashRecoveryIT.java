package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.agentrt.localstack.EmbeddedMongo;
import dev.agentrt.localstack.KafkaBroker;
import dev.agentrt.localstack.Services;
import dev.agentrt.localstack.TopicCreator;
import dev.agentrt.systemtests.ScriptedOpenAiServer.Call;
import dev.agentrt.systemtests.ScriptedOpenAiServer.Gate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.awaitility.core.ConditionTimeoutException;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crashes at the worst moments, end to end: each service killed with SIGKILL in turn while its work
 * is in flight (a model call held open by the scripted model, tools running, an event just
 * published), then started again on the same port; the Kafka broker and the MongoDB server stopped
 * and started again mid-run. Every run must end (success, or failed with a message in the chat)
 * within a bounded time, no tool call may be answered twice and no chat message may appear twice.
 *
 * <p>One stack for the whole class (H2-backed Mongo so its data survives its restart), with the
 * leases a user has (30 s, renewed every 5 s) and a 6 s Kafka session timeout.
 */
class CrashRecoveryIT {

  /** Tool calls the agent asks for in its first turn, all at once. */
  private static final int BURST = 6;

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(150);
  private static final Duration ARRIVAL_TIMEOUT = Duration.ofSeconds(60);

  @TempDir static Path dataDir;

  private static ScriptedOpenAiServer model;
  private static KafkaBroker kafka;
  private static EmbeddedMongo mongo;
  private static RunningServices services;
  private static MongoClient client;

  /** One line per run: the fault and how the run ended. */
  private static final ConcurrentLinkedQueue<String> outcomes = new ConcurrentLinkedQueue<>();

  private static final Map<String, Integer> duplicates = new ConcurrentHashMap<>();

  @BeforeAll
  static void startStack() throws IOException {
    model = new ScriptedOpenAiServer(BURST);
    kafka = KafkaBroker.start(dataDir.resolve("kafka"), 0);
    mongo = EmbeddedMongo.start(dataDir.resolve("mongo"), 0);
    TopicCreator.createAll(kafka.bootstrapServers());
    services =
        RunningServices.start(
            "crash-recovery",
            Services.ALL,
            kafka.bootstrapServers(),
            mongo.uri(),
            Map.ofEntries(
                Map.entry("AGENTRT_MODEL_PROVIDER", "openai"),
                Map.entry("AGENTRT_MODEL_BASE_URL", model.baseUrl()),
                Map.entry("AGENTRT_MODEL_NAME", "fake"),
                Map.entry("AGENTRT_AGENT_LOOP_MODEL_ATTEMPTS", "2"),
                Map.entry("AGENTRT_AGENT_LOOP_MODEL_BACKOFF", "100ms"),
                Map.entry("AGENTRT_AGENT_LOOP_MODEL_TIMEOUT", "5s"),
                Map.entry("AGENTRT_TOOLS_DOCS_ROOT", slowDocs().toString()),
                Map.entry("AGENTRT_TOOLS_TIMEOUT", "10s"),
                Map.entry("AGENTRT_TOOLS_UNCLAIMED_AFTER", "5s"),
                // Six JVMs starting at once on a shared two-core machine: give Kafka time to
                // answer.
                Map.entry("AGENTRT_STARTUP_CHECK_TIMEOUT", "60s"),
                // A killed consumer's partitions go to its restarted self after 6 s, not 10 s.
                Map.entry(
                    "SPRING_APPLICATION_JSON",
                    "{\"spring.kafka.consumer.properties.session.timeout.ms\":\"6000\","
                        + "\"spring.kafka.consumer.properties.heartbeat.interval.ms\":\"1000\"}")));
    client = MongoClients.create(mongo.uri());
  }

  @AfterAll
  static void stopStackAndSummarize() {
    Map<String, Long> byOutcome =
        outcomes.stream()
            .collect(Collectors.groupingBy(o -> o.replaceFirst(".*: ", ""), Collectors.counting()));
    System.out.printf(
        "FAULT RUNS: %d runs, outcomes %s, duplicate tool results %d, duplicate chat messages %d%n",
        outcomes.size(),
        byOutcome,
        duplicates.getOrDefault("tool", 0) + model.duplicateToolResults.size(),
        duplicates.getOrDefault("chat", 0));
    outcomes.forEach(o -> System.out.println("FAULT RUN " + o));
    if (client != null) {
      client.close();
    }
    if (services != null) {
      services.close();
    }
    if (kafka != null) {
      kafka.close();
    }
    if (mongo != null) {
      mongo.close();
    }
    if (model != null) {
      model.close();
    }
  }

  @Test
  void agentLoopKilledWhileItsModelCallIsInFlight() {
    Gate gate = model.hold(Call.AGENT_TURN);
    List<String> chats = startRuns(2, "Research Kafka topics");
    gate.awaitArrival(ARRIVAL_TIMEOUT);

    services.kill("agent-loop");
    model.release(Call.AGENT_TURN);
    services.startAgain("agent-loop");

    awaitEndedOnceEach("agent-loop killed during a model call", chats);
  }

  @Test
  void toolRunnerKilledWhileItsToolsRun() {
    List<String> chats = startRuns(2, "Research Kafka topics");
    await()
        .atMost(ARRIVAL_TIMEOUT)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> toolCalls(chats, "running") > 0);

    services.kill("tool-runner");
    long finishedAtKill = toolCalls(chats, "success") + toolCalls(chats, "failed");
    services.startAgain("tool-runner");

    awaitEndedOnceEach(
        "tool-runner killed with a tool running (%d of %d calls finished)"
            .formatted(finishedAtKill, BURST * chats.size()),
        chats);
  }

  @Test
  void orchestratorKilledWhileItsDecisionIsInFlight() {
    Gate gate = model.hold(Call.DECISION);
    List<String> chats = startRuns(2, "Research Kafka topics");
    gate.awaitArrival(ARRIVAL_TIMEOUT);

    services.kill("orchestrator");
    model.release(Call.DECISION);
    services.startAgain("orchestrator");

    awaitEndedOnceEach("orchestrator killed during its decision", chats);
  }

  @Test
  void agentInitKilledRightAfterTheTaskIsCreated() {
    Gate gate = model.hold(Call.DECISION);
    List<String> chats = startRuns(1, "Research Kafka topics");
    gate.awaitArrival(ARRIVAL_TIMEOUT);
    model.release(Call.DECISION);
    await()
        .atMost(ARRIVAL_TIMEOUT)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> !tasks(chats.getFirst()).isEmpty());

    services.kill("agent-init");
    services.startAgain("agent-init");

    awaitEndedOnceEach("agent-init killed right after TaskCreated", chats);
  }

  @Test
  void finalizerKilledWhileItsModelCallIsInFlight() {
    Gate gate = model.hold(Call.FINAL_ANSWER);
    List<String> chats = startRuns(2, "Research Kafka topics");
    gate.awaitArrival(RUN_TIMEOUT);

    services.kill("finalizer");
    model.release(Call.FINAL_ANSWER);
    services.startAgain("finalizer");

    awaitEndedOnceEach("finalizer killed during its model call", chats);
  }

  @Test
  void notifierKilledRightAfterTheTaskStartsWaiting() {
    List<String> chats = startRuns(1, "Research, but ask me first");
    String chatId = chats.getFirst();
    await()
        .atMost(RUN_TIMEOUT)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> tasks(chatId).stream().anyMatch(t -> "waiting".equals(t.get("status"))));

    services.kill("notifier");
    services.startAgain("notifier");

    await().atMost(RUN_TIMEOUT).until(() -> chatMessages(chatId).size() == 2);
    assertThat(chatMessages(chatId).get(1).getString("content")).contains("Which subject?");
    new ChatApi(services.baseUrl("orchestrator")).postMessage(chatId, "Kafka");
    awaitEndedOnceEach("notifier killed right after TaskWaiting", chats);
  }

  @Test
  void kafkaBrokerRestartedMidRun() {
    Gate gate = model.hold(Call.AGENT_TURN);
    List<String> chats = startRuns(2, "Research Kafka topics");
    gate.awaitArrival(ARRIVAL_TIMEOUT);

    kafka.close();
    model.release(Call.AGENT_TURN);
    kafka = kafka.startAgain();

    awaitEndedOnceEach("Kafka broker restarted during a model call", chats);
  }

  @Test
  void mongoServerRestartedMidRun() {
    Gate gate = model.hold(Call.AGENT_TURN);
    List<String> chats = startRuns(2, "Research Kafka topics");
    gate.awaitArrival(ARRIVAL_TIMEOUT);

    mongo.close();
    model.release(Call.AGENT_TURN);
    mongo = mongo.startAgain();

    awaitEndedOnceEach("MongoDB server restarted during a model call", chats);
  }

  /** New chats, each with one message that starts a run. */
  private static List<String> startRuns(int count, String message) {
    ChatApi api = new ChatApi(services.baseUrl("orchestrator"));
    List<String> chats = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String chatId = api.createChat();
      assertThat(api.postMessage(chatId, message).status()).isEqualTo(202);
      chats.add(chatId);
    }
    return chats;
  }

  /**
   * Each chat's run ends within the run timeout with one answer: the answer is the finalizer's last
   * write, and the task it answers has ended (success, or failed: a task that failed by a fault is
   * re-routed once to the fallback agent, whose task's answer is then the only one). Then nothing
   * is there twice.
   */
  private static void awaitEndedOnceEach(String fault, List<String> chats) {
    for (String chatId : chats) {
      Document answer;
      try {
        answer =
            await()
                .atMost(RUN_TIMEOUT)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> answer(chatId), found -> found != null);
      } catch (ConditionTimeoutException e) {
        outcomes.add(fault + ": did not end within " + RUN_TIMEOUT.toSeconds() + " s");
        throw e;
      }
      Document task = task(chatId, answer.getString("taskId"));
      assertThat(ended(task)).as("the task %s answered has ended", task).isTrue();
      List<Document> tasks = tasks(chatId);
      if (tasks.size() > 1) {
        assertThat(tasks)
            .as("a failed task and the fallback agent's task that re-routed it")
            .hasSize(2)
            .extracting(t -> t.getString("status"))
            .first()
            .isEqualTo("failed");
        assertThat(task.getString("_id")).isEqualTo(tasks.getLast().getString("_id"));
      }
      outcomes.add(
          fault + ": " + task.getString("status") + (tasks.size() > 1 ? " (re-routed)" : ""));
      nothingTwice(chatId);
    }
    assertThat(services.allAlive()).isTrue();
  }

  private static void nothingTwice(String chatId) {
    Map<String, Long> sameMessage =
        chatMessages(chatId).stream()
            .collect(
                Collectors.groupingBy(
                    m -> m.getString("role") + "|" + m.getString("taskId") + "|" + m.get("content"),
                    Collectors.counting()));
    sameMessage.values().stream()
        .filter(n -> n > 1)
        .forEach(n -> duplicates.merge("chat", 1, Integer::sum));
    assertThat(sameMessage)
        .as("chat messages of %s", chatId)
        .allSatisfy((k, n) -> assertThat(n).isOne());

    List<Document> calls =
        find("sub_agent_tool_calls", chatId).stream()
            .filter(c -> !"ask_user".equals(c.getString("name")))
            .toList();
    assertThat(calls)
        .as("every tool call of %s finished", chatId)
        .allSatisfy(c -> assertThat(c.getString("status")).isIn("success", "failed"));
    Map<String, Long> toolMessages =
        find("sub_agent_messages", chatId).stream()
            .filter(m -> "tool".equals(m.getString("role")))
            .collect(Collectors.groupingBy(m -> m.getString("toolCallId"), Collectors.counting()));
    Set<String> callIds =
        calls.stream().map(c -> c.getString("modelCallId")).collect(Collectors.toSet());
    toolMessages.values().stream()
        .filter(n -> n > 1)
        .forEach(n -> duplicates.merge("tool", 1, Integer::sum));
    assertThat(toolMessages)
        .as("one tool message per tool call of %s", chatId)
        .allSatisfy((k, n) -> assertThat(n).isOne());
    assertThat(toolMessages.keySet())
        .as("every tool call of %s answered", chatId)
        .containsAll(callIds);
    assertThat(model.duplicateToolResults).as("tool results the model got twice").isEmpty();
  }

  private static boolean ended(Document task) {
    return task != null
        && Set.of("success", "failed", "cancelled").contains(task.getString("status"));
  }

  /** The chat's answer (not a question), if it is written; there is one at most. */
  private static Document answer(String chatId) {
    List<Document> answers =
        chatMessages(chatId).stream()
            .filter(m -> "assistant".equals(m.getString("role")) && !isQuestion(m))
            .toList();
    assertThat(answers).as("answers in %s", chatId).hasSizeLessThanOrEqualTo(1);
    return answers.isEmpty() ? null : answers.getFirst();
  }

  private static Document task(String chatId, String taskId) {
    return tasks(chatId).stream()
        .filter(t -> t.getString("_id").equals(taskId))
        .findFirst()
        .orElseThrow();
  }

  private static boolean isQuestion(Document message) {
    return String.valueOf(message.get("content")).contains("Which subject?");
  }

  private static List<Document> tasks(String chatId) {
    return find("tasks", chatId);
  }

  private static List<Document> chatMessages(String chatId) {
    return find("chat_messages", chatId);
  }

  private static long toolCalls(List<String> chats, String status) {
    return db().getCollection("sub_agent_tool_calls")
        .countDocuments(Filters.and(Filters.in("chatId", chats), Filters.eq("status", status)));
  }

  private static List<Document> find(String collection, String chatId) {
    return StreamSupport.stream(
            db().getCollection(collection)
                .find(Filters.eq("chatId", chatId))
                .sort(new Document("createdAt", 1).append("_id", 1))
                .spliterator(),
            false)
        .toList();
  }

  private static MongoDatabase db() {
    return client.getDatabase("agentrt");
  }

  /**
   * A docs folder where every {@code search_docs} call reads several megabytes, so that a burst of
   * them keeps the tool-runner busy long enough to be killed while a tool runs.
   */
  private static Path slowDocs() throws IOException {
    Path docs = Files.createDirectories(dataDir.resolve("docs"));
    String paragraph = "Kafka topics keep records in partitions; consumers read them in order.\n";
    String body = paragraph.repeat(900_000 / paragraph.length());
    for (int i = 0; i < 4; i++) {
      Files.writeString(docs.resolve("kafka-" + i + ".md"), "# Kafka topics " + i + "\n\n" + body);
    }
    return docs;
  }
}
