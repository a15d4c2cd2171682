package dev.agentrt.toolrunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.sun.net.httpserver.HttpServer;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.events.TaskCancelled;
import dev.agentrt.events.ToolCallRequested;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Ids;
import dev.agentrt.store.Leases;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.testing.ConsumerGroups;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The service as it runs: its listeners on a real KRaft broker, its documents on a real
 * MongoDB-protocol server, the built-in tools on a docs folder. A requested search comes back as a
 * tool message and a {@code SubAgentMessageAdded} on the sub-agent-messages topic; a {@code
 * TaskCancelled} stops a tool that hangs.
 */
class ToolRunnerApplicationTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir static Path scratch;

  private static EmbeddedKafkaKraftBroker kafka;
  private static MongoServer mongoServer;
  private static MongoClient mongoClient;
  private static ConfigurableApplicationContext app;
  private static HttpServer http;
  private static final CountDownLatch hangRequested = new CountDownLatch(1);
  private static final CountDownLatch hangEnds = new CountDownLatch(1);

  @BeforeAll
  static void start() throws Exception {
    Path docs = Files.createDirectories(scratch.resolve("docs"));
    Files.writeString(docs.resolve("kafka.md"), "# Kafka\n\nTopics are keyed by conversation.\n");
    Files.writeString(docs.resolve("mongodb.md"), "# MongoDB\n\nDocuments and outboxes.\n");
    Path agents =
        Files.writeString(
            scratch.resolve("agents.yml"),
            """
            agents:
              - name: researcher
                description: Researches.
                systemPrompt: Research.
                tools: [search_docs, read_doc]
              - name: fetcher
                description: Fetches.
                systemPrompt: Fetch.
                tools: [http_get]
            """);
    // A page that never comes: GET /hang waits until the test ends.
    http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    http.createContext(
        "/hang",
        exchange -> {
          hangRequested.countDown();
          try {
            hangEnds.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.close();
        });
    http.start();
    kafka = new EmbeddedKafkaKraftBroker(1, 1);
    kafka.afterPropertiesSet();
    mongoServer = new MongoServer(new MemoryBackend());
    String mongoUri = "mongodb://127.0.0.1:" + mongoServer.bind().getPort() + "/agentrt";
    mongoClient = MongoClients.create(mongoUri);
    app =
        new SpringApplicationBuilder(ToolRunnerApplication.class)
            .run(
                "--spring.kafka.bootstrap-servers=" + kafka.getBrokersAsString(),
                "--spring.mongodb.uri=" + mongoUri,
                "--server.port=0",
                "--agentrt.tools.docs-root=" + docs,
                "--agentrt.tools.http.allowed-hosts=example.org, 127.0.0.1",
                "--agentrt.tools.http.allowed-addresses=127.0.0.1",
                "--agentrt.tools.http.allowed-ports=80,443," + http.getAddress().getPort(),
                "--agentrt.agents.file=" + agents);
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
    hangEnds.countDown();
    http.stop(0);
    mongoClient.close();
    mongoServer.shutdownNow();
    kafka.destroy();
  }

  @Test
  void theToolDefinitionsAreWrittenAtStartUpWithoutTheToolsThatAreNotConfigured() {
    MongoTemplate mongo = app.getBean(MongoTemplate.class);
    List<String> names = new java.util.ArrayList<>();

    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              names.clear();
              mongo
                  .getCollection(dev.agentrt.agents.ToolCatalog.DEFINITIONS)
                  .find()
                  .forEach(d -> names.add(d.getString("_id")));
              assertThat(names).isNotEmpty();
            });

    assertThat(names)
        .containsExactlyInAnyOrder(
            "ask_user",
            "search_docs",
            "read_doc",
            "calculator",
            "current_time",
            "write_note",
            "http_get");
    assertThat(app.getBean(dev.agentrt.toolrunner.tools.HttpProperties.class).allowedHosts())
        .containsExactly("example.org", "127.0.0.1");
  }

  @Test
  void aRequestedSearchComesBackAsAToolMessageThatWakesTheAgentLoop() {
    MongoTemplate mongo = app.getBean(MongoTemplate.class);
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    SubAgent subAgent =
        mongo.insert(
            new SubAgent(
                Ids.fresh(),
                Ids.fresh(),
                Ids.fresh(),
                "researcher",
                SubAgentStatus.active,
                2,
                null,
                now,
                now));
    ToolCall call =
        mongo.insert(
            new ToolCall(
                Ids.derived(subAgent.id(), "call_1"),
                subAgent.id(),
                subAgent.taskId(),
                subAgent.chatId(),
                subAgent.agent(),
                "call_1",
                "search_docs",
                "{\"query\":\"kafka topics\"}",
                ToolCallStatus.pending,
                null,
                null,
                null,
                null,
                now,
                now,
                List.of()));
    ToolCallRequested requested =
        new ToolCallRequested(
            Ids.derived(call.id(), "requested"),
            now,
            call.id(),
            subAgent.id(),
            subAgent.taskId(),
            subAgent.chatId(),
            call.name(),
            new ToolCallRequested.Call(
                call.agent(), call.stepId(), call.modelCallId(), call.arguments(), null));

    app.getBean(EventPublisher.class)
        .send(OutboxEntry.of(requested, app.getBean(EventCodec.class)))
        .join();

    ToolCall done =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> mongo.findById(call.id(), ToolCall.class),
                c -> c.status() == ToolCallStatus.success && c.lease() == null);
    JsonNode results = JSON.readTree(done.result()).get("results");
    assertThat(results.size()).isEqualTo(1);
    assertThat(results.get(0).get("path").asString()).isEqualTo("docs/kafka.md");
    assertThat(results.get(0).get("score").asInt()).isEqualTo(4);
    SubAgentMessage message =
        mongo.findById(Ids.derived(call.id(), "tool-message"), SubAgentMessage.class);
    assertThat(message.content()).isEqualTo(done.result());
    assertThat(message.toolCallId()).isEqualTo("call_1");
    assertThat(app.getBean(IncomingEvents.class).decode(consumeOne(subAgent.id())))
        .isEqualTo(
            new SubAgentMessageAdded(
                Ids.derived(message.id(), "added"),
                message.createdAt(),
                subAgent.id(),
                subAgent.taskId(),
                subAgent.chatId(),
                message.id(),
                "tool",
                new SubAgentMessageAdded.Carried(done.result(), "call_1")));
  }

  @Test
  void aToolRunningWhenItsTaskIsCancelledIsStoppedByTheCancellation() throws Exception {
    MongoTemplate mongo = app.getBean(MongoTemplate.class);
    // every instance hears every cancellation: a group of its own, named after its holder id
    String cancellations = "tool-runner-cancellations-" + app.getBean(Leases.class).holder();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> ConsumerGroups.isReading(kafka.getBrokersAsString(), cancellations));
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    SubAgent subAgent =
        mongo.insert(
            new SubAgent(
                Ids.fresh(),
                Ids.fresh(),
                Ids.fresh(),
                "fetcher",
                SubAgentStatus.active,
                2,
                null,
                now,
                now));
    String url = "http://127.0.0.1:" + http.getAddress().getPort() + "/hang";
    ToolCall call =
        mongo.insert(
            new ToolCall(
                Ids.derived(subAgent.id(), "call_hang"),
                subAgent.id(),
                subAgent.taskId(),
                subAgent.chatId(),
                subAgent.agent(),
                "call_hang",
                "http_get",
                JSON.createObjectNode().put("url", url).toString(),
                ToolCallStatus.pending,
                null,
                null,
                null,
                null,
                now,
                now,
                List.of()));
    EventCodec codec = app.getBean(EventCodec.class);
    app.getBean(EventPublisher.class)
        .send(
            OutboxEntry.of(
                new ToolCallRequested(
                    Ids.derived(call.id(), "requested"),
                    now,
                    call.id(),
                    subAgent.id(),
                    subAgent.taskId(),
                    subAgent.chatId(),
                    call.name()),
                codec))
        .join();
    assertThat(hangRequested.await(30, TimeUnit.SECONDS)).as("http_get is waiting").isTrue();

    OutboxEntry cancelled =
        OutboxEntry.of(
            new TaskCancelled(
                Ids.derived(subAgent.taskId(), "cancelled"),
                Instant.now(),
                subAgent.taskId(),
                subAgent.chatId(),
                subAgent.id(),
                "nothing yet"),
            codec);
    // Sent again until heard, as a redelivery would be: a new group reads from the newest record,
    // and its first position may be fixed a moment after its partitions are assigned.
    ToolCall done =
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(500))
            .until(
                () -> {
                  app.getBean(EventPublisher.class).send(cancelled).get(10, TimeUnit.SECONDS);
                  return mongo.findById(call.id(), ToolCall.class);
                },
                c -> c.status() == ToolCallStatus.failed && c.lease() == null);

    assertThat(JSON.readTree(done.error()))
        .isEqualTo(
            JSON.readTree(
                "{\"error_type\":\"cancelled\","
                    + "\"message\":\"http_get was stopped: its task was cancelled\"}"));
    assertThat(
            mongo.findById(Ids.derived(call.id(), "tool-message"), SubAgentMessage.class).content())
        .isEqualTo(done.error());
  }

  /** The one record with this key on the sub-agent-messages topic. */
  private static ConsumerRecord<String, byte[]> consumeOne(String key) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBrokersAsString(),
            ConsumerConfig.GROUP_ID_CONFIG, UUID.randomUUID().toString(),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(Topics.SUB_AGENT_MESSAGES));
      List<ConsumerRecord<String, byte[]>> matching = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                consumer
                    .poll(Duration.ofMillis(200))
                    .forEach(
                        r -> {
                          if (key.equals(r.key())) {
                            matching.add(r);
                          }
                        });
                return !matching.isEmpty();
              });
      assertThat(matching).hasSize(1);
      return matching.getFirst();
    }
  }
}
