package dev.agentrt.systemtests;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.agentrt.localstack.EmbeddedMongo;
import dev.agentrt.localstack.KafkaBroker;
import dev.agentrt.localstack.Services;
import dev.agentrt.localstack.TopicCreator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import org.bson.Document;

/**
 * A stack of its own for a fault test, with the settings a user has but one: the offline model,
 * every call of it taking {@code AGENTRT_OFFLINE_MODEL_LATENCY}, so that runs hold model calls when
 * the fault comes. MongoDB keeps its data in an H2 file, so the server can be stopped and started
 * again. What the tests read of the runs is here too.
 */
final class OfflineModelStack implements AutoCloseable {

  final KafkaBroker kafka;
  final RunningServices services;
  private EmbeddedMongo mongo;
  private final MongoClient client;

  private OfflineModelStack(
      KafkaBroker kafka, EmbeddedMongo mongo, RunningServices services, MongoClient client) {
    this.kafka = kafka;
    this.mongo = mongo;
    this.services = services;
    this.client = client;
  }

  /**
   * Starts the stack; if a part fails to start, what had started is stopped (a broker left running
   * on a data directory the test then deletes would halt this JVM, and every later test with it).
   */
  static OfflineModelStack start(String label, Path dataDir, Duration modelLatency) {
    return start(label, dataDir, modelLatency, Map.of());
  }

  /** {@link #start(String, Path, Duration)} with more environment for every service. */
  static OfflineModelStack start(
      String label, Path dataDir, Duration modelLatency, Map<String, String> moreEnv) {
    return start(
        dataDir,
        (kafka, mongo) ->
            RunningServices.start(label, Services.ALL, kafka, mongo, env(moreEnv, modelLatency)));
  }

  /** The six services in one JVM, as {@code ./run.sh} runs them, the model answering at once. */
  static OfflineModelStack startInOneJvm(String label, Path dataDir) {
    return start(
        dataDir,
        (kafka, mongo) -> RunningServices.startInOneJvm(label, Services.ALL, kafka, mongo));
  }

  private static OfflineModelStack start(
      Path dataDir, BiFunction<String, String, RunningServices> startServices) {
    KafkaBroker kafka = KafkaBroker.start(dataDir.resolve("kafka"), 0);
    EmbeddedMongo mongo = null;
    try {
      mongo = EmbeddedMongo.start(dataDir.resolve("mongo"), 0);
      TopicCreator.createAll(kafka.bootstrapServers());
      RunningServices services = startServices.apply(kafka.bootstrapServers(), mongo.uri());
      return new OfflineModelStack(kafka, mongo, services, MongoClients.create(mongo.uri()));
    } catch (RuntimeException e) {
      kafka.close();
      if (mongo != null) {
        mongo.close();
      }
      throw e;
    }
  }

  private static Map<String, String> env(Map<String, String> moreEnv, Duration modelLatency) {
    Map<String, String> env = new HashMap<>(moreEnv);
    env.put("AGENTRT_OFFLINE_MODEL_LATENCY", modelLatency.toMillis() + "ms");
    return env;
  }

  /** One new chat per message, each message posted: a run each. */
  void startRuns(int count, String message) {
    ChatApi api = new ChatApi(services.baseUrl("orchestrator"));
    for (int i = 0; i < count; i++) {
      String chatId = api.createChat();
      int status = api.postMessage(chatId, message + " " + i).status();
      if (status != 202) {
        throw new IllegalStateException("posting a message answered " + status);
      }
    }
  }

  void stopMongo() {
    mongo.close();
  }

  void startMongoAgain() {
    mongo = mongo.startAgain();
  }

  /** Sub-agents whose turn an agent-loop holds. */
  long heldTurns() {
    return db().getCollection("sub_agents").countDocuments(Filters.exists("turn.holder"));
  }

  long tasksEnded() {
    return db().getCollection("tasks")
        .countDocuments(Filters.in("status", "success", "failed", "cancelled"));
  }

  /** How many tasks have each status. */
  Map<String, Long> statuses() {
    return db().getCollection("tasks").find().into(new ArrayList<>()).stream()
        .collect(Collectors.groupingBy(t -> t.getString("status"), Collectors.counting()));
  }

  /** The finalizer's answers in the chats: assistant messages linked to a task. */
  List<Document> answers() {
    return db().getCollection("chat_messages")
        .find(Filters.and(Filters.eq("role", "assistant"), Filters.exists("taskId")))
        .into(new ArrayList<>());
  }

  /** The finalizer's answers per task. */
  Map<String, Long> answersPerTask() {
    return answers().stream()
        .collect(Collectors.groupingBy(m -> m.getString("taskId"), Collectors.counting()));
  }

  /** Tool messages per tool call, over every conversation. */
  Map<String, Long> toolResultsPerCall() {
    return db()
        .getCollection("sub_agent_messages")
        .find(Filters.eq("role", "tool"))
        .into(new ArrayList<>())
        .stream()
        .collect(
            Collectors.groupingBy(
                m -> m.getString("subAgentId") + "/" + m.getString("toolCallId"),
                Collectors.counting()));
  }

  MongoDatabase db() {
    return client.getDatabase("agentrt");
  }

  @Override
  public void close() {
    // Whatever one part throws, the parts after it are stopped too.
    try (var m = mongo;
        var k = kafka;
        var s = services;
        var c = client) {
      // closed in reverse order: client, services, Kafka, MongoDB
    }
  }
}
