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
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The heartbeat, with the settings a user has: agent-loop killed with SIGKILL while many runs hold
 * a model call. Their turns' leases (30 s, renewed every 5 s while the worker lives) stop being
 * renewed, and the restarted agent-loop takes each turn up once its lease passed: every run ends
 * {@code success}, none as {@code timeout}, each answered once. The model is the offline model with
 * every call taking 2 s ({@code AGENTRT_OFFLINE_MODEL_LATENCY}), nothing else is set.
 */
class AgentLoopKilledIT {

  private static final int RUNS = 20;

  /** What the issue asks: every run done within a minute of the crash. */
  private static final Duration AFTER_THE_KILL = Duration.ofSeconds(60);

  @TempDir static Path dataDir;

  private static KafkaBroker kafka;
  private static EmbeddedMongo mongo;
  private static RunningServices services;
  private static MongoClient client;

  @BeforeAll
  static void startStack() throws IOException {
    kafka = KafkaBroker.start(dataDir.resolve("kafka"), 0);
    mongo = EmbeddedMongo.start(null, 0);
    TopicCreator.createAll(kafka.bootstrapServers());
    services =
        RunningServices.start(
            "agent-loop-killed",
            Services.ALL,
            kafka.bootstrapServers(),
            mongo.uri(),
            Map.of("AGENTRT_OFFLINE_MODEL_LATENCY", "2s"));
    client = MongoClients.create(mongo.uri());
  }

  @AfterAll
  static void stopStack() {
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
  }

  @Test
  void everyRunWhoseTurnWasHeldByTheKilledAgentLoopEndsOnceAndInTime() {
    ChatApi api = new ChatApi(services.baseUrl("orchestrator"));
    List<String> chats = new ArrayList<>();
    for (int i = 0; i < RUNS; i++) {
      String chatId = api.createChat();
      assertThat(api.postMessage(chatId, "Research Kafka topics " + i).status()).isEqualTo(202);
      chats.add(chatId);
    }
    // Kill once most runs hold a model turn (2 s each): their workers die mid-call.
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> heldTurns() >= RUNS / 2);

    services.kill("agent-loop");
    long heldAtTheKill = heldTurns();
    long killedAt = System.nanoTime();
    services.startAgain("agent-loop");

    await()
        .atMost(AFTER_THE_KILL)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> tasksWith("success") == RUNS || tasksEnded() == RUNS);
    long seconds = Duration.ofNanos(System.nanoTime() - killedAt).toSeconds();
    System.out.printf(
        "AGENT-LOOP KILLED: %d turns held at the kill, %d runs ended %s, %d s after the kill%n",
        heldAtTheKill, RUNS, statuses(), seconds);
    assertThat(statuses()).as("how the runs ended").isEqualTo(Map.of("success", (long) RUNS));

    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> answers().size() == RUNS);
    Map<String, Long> answersPerTask =
        answers().stream()
            .collect(Collectors.groupingBy(m -> m.getString("taskId"), Collectors.counting()));
    assertThat(answersPerTask).hasSize(RUNS).allSatisfy((task, n) -> assertThat(n).isOne());
    assertThat(services.allAlive()).isTrue();
  }

  private static long heldTurns() {
    return db().getCollection("sub_agents").countDocuments(Filters.exists("turn.holder"));
  }

  private static long tasksWith(String status) {
    return db().getCollection("tasks").countDocuments(Filters.eq("status", status));
  }

  private static long tasksEnded() {
    return db().getCollection("tasks")
        .countDocuments(Filters.in("status", "success", "failed", "cancelled"));
  }

  private static Map<String, Long> statuses() {
    return db().getCollection("tasks").find().into(new ArrayList<>()).stream()
        .collect(Collectors.groupingBy(t -> t.getString("status"), Collectors.counting()));
  }

  /** The finalizer's answers in the chats: assistant messages linked to a task. */
  private static List<Document> answers() {
    return db().getCollection("chat_messages")
        .find(Filters.and(Filters.eq("role", "assistant"), Filters.exists("taskId")))
        .into(new ArrayList<>());
  }

  private static MongoDatabase db() {
    return client.getDatabase("agentrt");
  }
}
