package dev.agentrt.bench;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.localstack.EmbeddedMongo;
import dev.agentrt.localstack.KafkaBroker;
import dev.agentrt.localstack.Ports;
import dev.agentrt.localstack.ServiceProcess;
import dev.agentrt.localstack.ServiceProcess.JvmMode;
import dev.agentrt.localstack.Services;
import dev.agentrt.localstack.TopicCreator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the benchmark runs against, all started here: a Kafka broker and the MongoDB-protocol server
 * (in memory) in this JVM, the fake model and the slow endpoint, and the six services as processes
 * with production JVM flags, using the OpenAI provider pointed at the fake model and the bench's
 * own agents file. Logs under {@code <work>/logs}.
 */
final class BenchStack implements AutoCloseable {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** This JVM among {@link #pids()}: Kafka, the in-memory MongoDB server and the bench's driver. */
  static final String BENCH_JVM = "bench JVM (Kafka + MongoDB + driver)";

  static final String HTTP_GET = ToolCatalog.HTTP_GET;
  private static final Duration START_TIMEOUT = Duration.ofMinutes(4);
  private static final String MONGO_COMMANDS = "mongodb.driver.commands";
  private static final String GROUP_COMMIT_ITEMS = "agentrt.group-commit.items";

  final KafkaBroker kafka;
  final EmbeddedMongo mongo;
  final SlowEndpoint slow;
  final FakeOpenAi model;
  final MongoClient mongoClient;
  final Map<String, ServiceProcess> services = new LinkedHashMap<>();

  private BenchStack(KafkaBroker kafka, EmbeddedMongo mongo, SlowEndpoint slow, FakeOpenAi model) {
    this.kafka = kafka;
    this.mongo = mongo;
    this.slow = slow;
    this.model = model;
    this.mongoClient = MongoClients.create(mongo.uri());
  }

  /**
   * @param work a fresh directory for Kafka's data, the agents file and the logs
   * @param jvmOptions more JVM options for every service (a heap size, a flight recording)
   */
  static BenchStack start(Path repoRoot, Path work, List<String> jvmOptions) {
    KafkaBroker kafka = KafkaBroker.start(work.resolve("kafka"), 0);
    EmbeddedMongo mongo = EmbeddedMongo.start(null, 0);
    TopicCreator.createAll(kafka.bootstrapServers());
    SlowEndpoint slow = new SlowEndpoint();
    FakeOpenAi model = new FakeOpenAi(slow.baseUrl());
    BenchStack stack = new BenchStack(kafka, mongo, slow, model);
    try {
      Path agents = stack.writeAgentsFile(work.resolve("bench-agents.yml"));
      Map<String, String> env = new LinkedHashMap<>();
      env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
      env.put("MONGODB_URI", mongo.uri());
      env.put("AGENTRT_MODEL_PROVIDER", "openai");
      env.put("AGENTRT_MODEL_BASE_URL", model.baseUrl());
      env.put("AGENTRT_MODEL_API_KEY", "bench");
      env.put("AGENTRT_MODEL_NAME", "bench-model");
      env.put("AGENTRT_AGENTS_FILE", agents.toString());
      // Scenario 5's http_get calls the slow endpoint on this machine: its host, address and port.
      env.put("AGENTRT_TOOLS_HTTP_ALLOWED_HOSTS", "127.0.0.1");
      env.put("AGENTRT_TOOLS_HTTP_ALLOWED_ADDRESSES", "127.0.0.1");
      env.put("AGENTRT_TOOLS_HTTP_ALLOWED_PORTS", String.valueOf(slow.port()));
      // Scenario 4 has every sub-agent's model call in flight at once; the default bound of calls
      // in flight per model (256, agentrt.models.max-concurrent-calls) protects a provider, and
      // would make the scenario measure the bound instead of the runtime.
      env.put("AGENTRT_MODELS_MAXCONCURRENTCALLS", "100000");
      // Six JVMs starting at once on two shared cores can take longer than the default 10 s.
      env.put("AGENTRT_STARTUP_CHECK_TIMEOUT", "60s");
      for (String name : Services.ALL) {
        stack.services.put(
            name,
            ServiceProcess.start(
                repoRoot,
                name,
                Ports.free(),
                env,
                work.resolve("logs").resolve(name + ".log"),
                JvmMode.PRODUCTION,
                jvmOptions));
      }
      stack.services.values().forEach(s -> s.awaitHealthy(START_TIMEOUT));
      return stack;
    } catch (RuntimeException e) {
      stack.close();
      throw e;
    }
  }

  MongoDatabase db() {
    return mongoClient.getDatabase("agentrt");
  }

  String orchestratorUrl() {
    return "http://127.0.0.1:" + services.get("orchestrator").httpPort();
  }

  /** The processes to watch: each service, and this JVM (Kafka, MongoDB, the driver). */
  Map<String, Long> pids() {
    Map<String, Long> pids = new LinkedHashMap<>();
    services.forEach((name, process) -> pids.put(name, process.pid()));
    pids.put(BENCH_JVM, ProcessHandle.current().pid());
    return pids;
  }

  /**
   * What the services' actuators have counted so far: their MongoDB commands, in all and by kind,
   * and their group commits.
   */
  record Counters(
      Map<String, Double> commands,
      Map<String, Map<String, Double>> commandsByKind,
      Map<String, Map<String, double[]>> groupCommits) {}

  /**
   * Every counter a measured window is read between: some 30 actuator requests per service. The
   * warm-up reads them as often, so that the services' JIT compilers are done with the code that
   * answers them before a window, not busy with it inside one.
   */
  Counters counters() {
    return new Counters(mongoCommands(), mongoCommandsByKind(), groupCommits());
  }

  /**
   * The MongoDB commands each service has sent since it started: the count of its driver's {@code
   * mongodb.driver.commands} timer (Spring Boot's command listener), NaN where a service has none.
   */
  private Map<String, Double> mongoCommands() {
    Map<String, Double> commands = new LinkedHashMap<>();
    services.forEach(
        (name, process) -> commands.put(name, metric(process, MONGO_COMMANDS, "COUNT")));
    return commands;
  }

  /**
   * The same commands by kind: for each service, the count of each command on each collection
   * ("update runs", "find ledger", …), so that a run shows where its round trips go.
   */
  private Map<String, Map<String, Double>> mongoCommandsByKind() {
    Map<String, Map<String, Double>> byService = new LinkedHashMap<>();
    services.forEach(
        (name, process) -> {
          Map<String, Double> kinds = new TreeMap<>();
          for (String command : tagValues(metricJson(process, MONGO_COMMANDS), "command")) {
            String byCommand = MONGO_COMMANDS + "?tag=command:" + command;
            for (String collection : tagValues(metricJson(process, byCommand), "collection")) {
              kinds.put(
                  command + " " + collection,
                  statistic(
                      metricJson(process, byCommand + "&tag=collection:" + collection), "COUNT"));
            }
          }
          byService.put(name, kinds);
        });
    return byService;
  }

  /**
   * Each service's group commits ({@code agentrt.group-commit.items}): for each writer, its writes
   * so far and the items they carried, as {@code [writes, items]}.
   */
  private Map<String, Map<String, double[]>> groupCommits() {
    Map<String, Map<String, double[]>> byService = new LinkedHashMap<>();
    services.forEach(
        (name, process) -> {
          Map<String, double[]> writers = new TreeMap<>();
          for (String writer : tagValues(metricJson(process, GROUP_COMMIT_ITEMS), "writer")) {
            JsonNode items = metricJson(process, GROUP_COMMIT_ITEMS + "?tag=writer:" + writer);
            writers.put(
                writer, new double[] {statistic(items, "COUNT"), statistic(items, "TOTAL")});
          }
          byService.put(name, writers);
        });
    return byService;
  }

  private static List<String> tagValues(JsonNode metric, String tag) {
    List<String> values = new ArrayList<>();
    for (JsonNode available : metric.path("availableTags")) {
      if (available.path("tag").asString().equals(tag)) {
        available.path("values").forEach(v -> values.add(v.asString()));
      }
    }
    return values;
  }

  /** One statistic of a service's metric, from its actuator; NaN when it has no such metric. */
  private static double metric(ServiceProcess process, String name, String statistic) {
    return statistic(metricJson(process, name), statistic);
  }

  private static double statistic(JsonNode metric, String statistic) {
    for (JsonNode measurement : metric.path("measurements")) {
      if (measurement.path("statistic").asString().equals(statistic)) {
        return measurement.path("value").asDouble();
      }
    }
    return Double.NaN;
  }

  /** A metric as the service's actuator shows it; an empty object when it has no such metric. */
  private static JsonNode metricJson(ServiceProcess process, String nameAndQuery) {
    URI uri =
        URI.create("http://127.0.0.1:" + process.httpPort() + "/actuator/metrics/" + nameAndQuery);
    try {
      HttpResponse<String> response =
          HTTP.send(HttpRequest.newBuilder(uri).GET().build(), BodyHandlers.ofString());
      return response.statusCode() == 200
          ? JSON.readTree(response.body())
          : JSON.createObjectNode();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  List<String> deadServices() {
    List<String> dead = new ArrayList<>();
    services.forEach(
        (name, process) -> {
          if (!process.isAlive()) {
            dead.add(name);
          }
        });
    return dead;
  }

  private Path writeAgentsFile(Path file) {
    String tools = "[read_doc, http_get]";
    String yaml =
        """
        # Written by the benchmark: one agent that does what the fake model's script says.
        agents:
          - name: %s
            description: Calls the tools its task's script names, round after round, then answers.
            maxSteps: 200
            tools: %s
            systemPrompt: Follow the bench script in your task.
        """
            .formatted(FakeOpenAi.AGENT, tools);
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  @Override
  public void close() {
    ServiceProcess.closeAll(services.values());
    model.close();
    slow.close();
    mongoClient.close();
    kafka.close();
    mongo.close();
  }
}
