package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.agentrt.events.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * One real event end to end, through the services' real listeners: a person's message is stored and
 * announced on Kafka, the orchestrator makes a task, agent-init consumes the task's event and
 * starts a sub-agent, and the read API shows it. Subclasses provide Kafka and MongoDB.
 */
abstract class WalkingSkeletonContract {

  private static final Duration PIPELINE_TIMEOUT = Duration.ofSeconds(30);

  protected abstract RunningServices services();

  protected abstract String kafkaBootstrap();

  protected abstract String mongoUri();

  private ChatApi api() {
    return new ChatApi(services().baseUrl("orchestrator"));
  }

  @Test
  void aPostedMessageBecomesATaskWhoseSubAgentAgentInitStarts() {
    ChatApi api = api();
    String chatId = api.createChat();

    ChatApi.Response posted = api.postMessage(chatId, "Research Kafka");
    assertThat(posted.status()).isEqualTo(202);
    String messageId = posted.body().required("id").asString();

    JsonNode task =
        await()
            .atMost(PIPELINE_TIMEOUT)
            .until(
                () -> api.get("/api/chats/" + chatId + "/tasks").body(),
                tasks -> tasks.size() == 1 && tasks.get(0).path("subAgentId").isString())
            .get(0);
    assertThat(task.path("agent").asString()).isEqualTo("researcher");
    assertThat(task.path("instruction").asString()).isEqualTo("Research Kafka");
    assertThat(task.path("status").asString()).isIn("running", "waiting", "success");

    JsonNode messages = api.get("/api/chats/" + chatId + "/messages").body();
    assertThat(messages.get(0).path("id").asString()).isEqualTo(messageId);
    assertThat(messages.get(0).path("role").asString()).isEqualTo("user");
    assertThat(messages.get(0).path("content").asString()).isEqualTo("Research Kafka");

    try (MongoClient mongo = MongoClients.create(mongoUri())) {
      MongoDatabase db = mongo.getDatabase("agentrt");
      Document subAgent =
          db.getCollection("sub_agents")
              .find(Filters.eq("_id", task.path("subAgentId").asString()))
              .first();
      assertThat(subAgent).isNotNull();
      assertThat(subAgent.getString("taskId")).isEqualTo(task.path("id").asString());
      assertThat(subAgent.getString("status")).isIn("active", "waiting_for_user", "completed");
      Document stored =
          db.getCollection("chat_messages").find(Filters.eq("_id", messageId)).first();
      assertThat(stored.getList("outbox", Document.class))
          .as("outbox emptied once published")
          .isEmpty();
    }

    ConsumerRecord<String, byte[]> created =
        readAll(Topics.TASKS).stream()
            .filter(r -> task.path("id").asString().equals(r.key()))
            .findFirst()
            .orElseThrow();
    Map<String, String> headers = headers(created);
    assertThat(headers)
        .containsEntry("ce_specversion", "1.0")
        .containsEntry("ce_type", "dev.agentrt.TaskCreated")
        .containsEntry("ce_source", "/agentrt/orchestrator")
        .containsEntry("ce_subject", task.path("id").asString())
        .containsEntry("ce_dataschema", "urn:agentrt:schema:task-created")
        .containsKeys("ce_id", "ce_time");
    assertThat(new String(created.value(), StandardCharsets.UTF_8))
        .contains("\"instruction\":\"Research Kafka\"");
  }

  @Test
  void badRequestsGetAReasonAndChangeNothing() {
    ChatApi api = api();
    String chatId = api.createChat();

    ChatApi.Response blank = api.postMessage(chatId, "  ");
    assertThat(blank.status()).isEqualTo(400);
    assertThat(blank.body().path("detail").asString()).contains("content");

    ChatApi.Response notJson = api.post("/api/chats/" + chatId + "/messages", "{oops");
    assertThat(notJson.status()).isEqualTo(400);
    assertThat(notJson.body().path("detail").asString()).contains("not valid JSON");

    ChatApi.Response unknownChat = api.postMessage("no-such-chat", "Research Kafka");
    assertThat(unknownChat.status()).isEqualTo(404);
    assertThat(unknownChat.body().path("detail").asString()).contains("no-such-chat");

    assertThat(api.get("/api/chats/" + chatId + "/messages").body()).isEmpty();
    assertThat(api.get("/api/chats/" + chatId + "/tasks").body()).isEmpty();
  }

  @Test
  void aRecordThatIsNotAValidEventIsDeadLetteredWithItsReasonAndConsumingGoesOn() {
    String poisonKey = "poison-" + UUID.randomUUID();
    try (KafkaProducer<String, byte[]> producer = producer()) {
      ProducerRecord<String, byte[]> poison =
          new ProducerRecord<>(
              Topics.TASKS, poisonKey, "{\"eventId\":\"x\"}".getBytes(StandardCharsets.UTF_8));
      poison.headers().add("ce_specversion", "1.0".getBytes(StandardCharsets.UTF_8));
      poison.headers().add("ce_id", "x".getBytes(StandardCharsets.UTF_8));
      poison.headers().add("ce_type", "dev.agentrt.TaskCreated".getBytes(StandardCharsets.UTF_8));
      poison.headers().add("ce_source", "/test".getBytes(StandardCharsets.UTF_8));
      producer.send(poison);
      producer.send(
          new ProducerRecord<>(
              Topics.TASKS, poisonKey + "-not-json", "not json".getBytes(StandardCharsets.UTF_8)));
      producer.flush();
    }

    List<ConsumerRecord<String, byte[]>> deadLetters =
        await()
            .atMost(PIPELINE_TIMEOUT)
            .until(
                () ->
                    readAll(Topics.DEAD_LETTERS).stream()
                        .filter(r -> r.key() != null && r.key().startsWith(poisonKey))
                        .toList(),
                // every consumer group of the topic dead-letters its own copy: wait for both keys
                records ->
                    records.stream().anyMatch(r -> r.key().equals(poisonKey))
                        && records.stream().anyMatch(r -> r.key().equals(poisonKey + "-not-json")));
    Map<String, String> invalid =
        headers(
            deadLetters.stream().filter(r -> r.key().equals(poisonKey)).findFirst().orElseThrow());
    assertThat(invalid.get("kafka_dlt-exception-message"))
        .contains("TaskCreated")
        .contains("taskId");
    assertThat(invalid)
        .containsEntry("kafka_dlt-original-topic", Topics.TASKS)
        .containsKey("kafka_dlt-original-offset");
    Map<String, String> notCloudEvent =
        headers(
            deadLetters.stream()
                .filter(r -> r.key().endsWith("-not-json"))
                .findFirst()
                .orElseThrow());
    assertThat(notCloudEvent.get("kafka_dlt-exception-message")).contains("not a CloudEvent");

    // the partitions keep moving: a valid message posted afterwards still flows
    ChatApi api = api();
    String chatId = api.createChat();
    api.postMessage(chatId, "Research MongoDB");
    await()
        .atMost(PIPELINE_TIMEOUT)
        .until(
            () -> api.get("/api/chats/" + chatId + "/tasks").body(),
            tasks -> tasks.size() == 1 && tasks.get(0).path("subAgentId").isString());
    assertThat(services().allAlive()).isTrue();
  }

  private KafkaProducer<String, byte[]> producer() {
    return new KafkaProducer<>(
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafkaBootstrap()),
        new StringSerializer(),
        new ByteArraySerializer());
  }

  private List<ConsumerRecord<String, byte[]>> readAll(String topic) {
    return new Topology(kafkaBootstrap()).readAll(topic);
  }

  private static Map<String, String> headers(ConsumerRecord<String, byte[]> record) {
    Map<String, String> headers = new java.util.HashMap<>();
    for (Header h : record.headers()) {
      headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
    }
    return headers;
  }
}
