package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.events.Topics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Records no service can handle, published with a plain KafkaProducer on every topic a service
 * consumes: each lands on {@code agentrt.dead-letters} once per service that reads it (every
 * consumer of its topic, but a record of a known event type only those that handle the type), with
 * a readable reason and the original topic, partition and offset in headers, and the services keep
 * consuming.
 */
class PoisonRecordsIT {

  /**
   * Close to the 1 MiB the producers and the broker accept: copied to the dead letters as it is.
   */
  private static final int HUGE = 1_000_000;

  /**
   * So close to 1 MiB that with the reason headers the copy would exceed it: dead-lettered without
   * its value, saying where the original is.
   */
  private static final int AT_THE_LIMIT = 1_048_000;

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  /** Who consumes each topic (consumer group = service name), and an event type of the topic. */
  private static final Map<String, List<String>> CONSUMERS =
      Map.of(
          Topics.CHAT_MESSAGES, List.of("orchestrator"),
          Topics.TASKS, List.of("agent-init", "finalizer", "notifier"),
          Topics.SUB_AGENT_MESSAGES, List.of("agent-loop"),
          Topics.TOOL_CALLS, List.of("tool-runner"));

  /**
   * Who handles the event type of {@link #TYPES} on each topic: a record that names a known type
   * reaches only the services that handle it; the others drop it unread (libs/platform {@code
   * UnhandledEventTypes}), so only those dead-letter it.
   */
  private static final Map<String, List<String>> HANDLERS =
      Map.of(
          Topics.CHAT_MESSAGES, List.of("orchestrator"),
          Topics.TASKS, List.of("agent-init"),
          Topics.SUB_AGENT_MESSAGES, List.of("agent-loop"),
          Topics.TOOL_CALLS, List.of("tool-runner"));

  private static final Map<String, String> TYPES =
      Map.of(
          Topics.CHAT_MESSAGES, "dev.agentrt.ChatMessageAdded",
          Topics.TASKS, "dev.agentrt.TaskCreated",
          Topics.SUB_AGENT_MESSAGES, "dev.agentrt.SubAgentMessageAdded",
          Topics.TOOL_CALLS, "dev.agentrt.ToolCallRequested");

  private record Poison(String kind, String reason, String ceType, byte[] value, boolean headers) {
    boolean copied() {
      return value.length < AT_THE_LIMIT;
    }
  }

  private record Sent(String topic, Poison poison, String key, RecordMetadata at) {
    /**
     * The services that dead-letter it: those that handle its type when it names the topic's known
     * type, every consumer of the topic when it names none or one nobody knows.
     */
    List<String> deadLetteredBy() {
      return poison.headers() && poison.ceType().equals(TYPES.get(topic))
          ? HANDLERS.get(topic)
          : CONSUMERS.get(topic);
    }
  }

  private final EmbeddedStack stack = EmbeddedStack.get();
  private final ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));

  @Test
  void poisonOnEveryTopicIsDeadLetteredWithItsReasonAndOriginAndTheServicesKeepConsuming()
      throws Exception {
    List<Sent> sent = new ArrayList<>();
    try (KafkaProducer<String, byte[]> producer = producer()) {
      for (String topic : CONSUMERS.keySet()) {
        for (Poison poison : poisons(TYPES.get(topic))) {
          String key = "poison-" + poison.kind() + "-" + UUID.randomUUID();
          RecordMetadata at =
              producer
                  .send(
                      new ProducerRecord<>(topic, null, key, poison.value(), headers(poison, key)))
                  .get();
          sent.add(new Sent(topic, poison, key, at));
        }
      }
    }

    Topology topology = new Topology(stack.kafka.bootstrapServers());
    int expected = sent.stream().mapToInt(s -> s.deadLetteredBy().size()).sum();
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> ofKeys(topology.readAll(Topics.DEAD_LETTERS), sent).size() >= expected);
    List<ConsumerRecord<String, byte[]>> deadLetters =
        ofKeys(topology.readAll(Topics.DEAD_LETTERS), sent);

    assertThat(deadLetters).as("one dead letter per poison record and consumer").hasSize(expected);
    for (Sent s : sent) {
      List<ConsumerRecord<String, byte[]>> letters =
          deadLetters.stream().filter(l -> l.key().equals(s.key())).toList();
      assertThat(letters)
          .extracting(l -> text(l, "kafka_dlt-original-consumer-group"))
          .as("%s on %s", s.poison().kind(), s.topic())
          .containsExactlyInAnyOrderElementsOf(s.deadLetteredBy());
      for (ConsumerRecord<String, byte[]> letter : letters) {
        assertThat(text(letter, "kafka_dlt-original-topic")).isEqualTo(s.topic());
        assertThat(ByteBuffer.wrap(bytes(letter, "kafka_dlt-original-partition")).getInt())
            .isEqualTo(s.at().partition());
        assertThat(ByteBuffer.wrap(bytes(letter, "kafka_dlt-original-offset")).getLong())
            .isEqualTo(s.at().offset());
        assertThat(text(letter, "kafka_dlt-exception-message"))
            .as("the reason for %s on %s", s.poison().kind(), s.topic())
            .contains(s.poison().reason())
            .doesNotContain("\tat ");
        if (s.poison().copied()) {
          assertThat(Arrays.equals(letter.value(), s.poison().value()))
              .as("the original value of %s on %s, for replay", s.poison().kind(), s.topic())
              .isTrue();
        } else {
          assertThat(letter.value()).isNull();
          assertThat(text(letter, "agentrt_dlt-value-dropped"))
              .endsWith(
                  "the original is %s-%d@%d"
                      .formatted(s.topic(), s.at().partition(), s.at().offset()));
        }
      }
    }

    assertThat(stack.services.allAlive()).isTrue();
    aResearchRunStillCompletes();
    aQuestionIsStillAsked();
  }

  /** orchestrator, agent-init, agent-loop, tool-runner and finalizer each handle a new event. */
  private void aResearchRunStillCompletes() {
    String chatId = api.createChat();
    api.postMessage(chatId, "Research Kafka and MongoDB");
    JsonNode messages =
        await()
            .atMost(TIMEOUT)
            .until(() -> api.get("/api/chats/" + chatId + "/messages").body(), m -> m.size() == 2);
    assertThat(messages.get(1).path("content").asString()).contains("Sources");
  }

  /** The notifier handles a new event: the sub-agent's question reaches the chat. */
  private void aQuestionIsStillAsked() {
    String chatId = api.createChat();
    api.postMessage(chatId, "Research");
    JsonNode messages =
        await()
            .atMost(TIMEOUT)
            .until(() -> api.get("/api/chats/" + chatId + "/messages").body(), m -> m.size() == 2);
    assertThat(messages.get(1).path("role").asString()).isEqualTo("assistant");
  }

  private static List<Poison> poisons(String ceType) {
    byte[] huge = padded(HUGE);
    byte[] atTheLimit = padded(AT_THE_LIMIT);
    return List.of(
        new Poison("not-json", "is not JSON", ceType, utf8("this is not JSON {"), true),
        new Poison("wrong-schema", "violates its schema", ceType, utf8("{\"unexpected\":1}"), true),
        new Poison(
            "unknown-type", "unknown event type", "dev.agentrt.NoSuchEvent", utf8("{}"), true),
        new Poison("no-headers", "not a CloudEvent", ceType, utf8("{}"), false),
        new Poison("huge", "violates its schema", ceType, huge, true),
        new Poison("at-the-limit", "violates its schema", ceType, atTheLimit, true));
  }

  /** A JSON object of about {@code size} bytes, none of the event's fields in it. */
  private static byte[] padded(int size) {
    return utf8("{\"padding\":\"" + "x".repeat(size - 14) + "\"}");
  }

  private static RecordHeaders headers(Poison poison, String key) {
    RecordHeaders headers = new RecordHeaders();
    if (poison.headers()) {
      headers.add("ce_specversion", utf8("1.0"));
      headers.add("ce_id", utf8(UUID.randomUUID().toString()));
      headers.add("ce_source", utf8("/system-tests/poison"));
      headers.add("ce_type", utf8(poison.ceType()));
      headers.add("ce_subject", utf8(key));
      headers.add("content-type", utf8("application/json"));
    }
    return headers;
  }

  private KafkaProducer<String, byte[]> producer() {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            stack.kafka.bootstrapServers(),
            ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
            1_048_576),
        new StringSerializer(),
        new ByteArraySerializer());
  }

  private static List<ConsumerRecord<String, byte[]>> ofKeys(
      List<ConsumerRecord<String, byte[]>> records, List<Sent> sent) {
    List<String> keys = sent.stream().map(Sent::key).toList();
    return records.stream().filter(r -> r.key() != null && keys.contains(r.key())).toList();
  }

  private static byte[] bytes(ConsumerRecord<String, byte[]> record, String header) {
    Header h = record.headers().lastHeader(header);
    assertThat(h).as("header %s", header).isNotNull();
    return h.value();
  }

  private static String text(ConsumerRecord<String, byte[]> record, String header) {
    return new String(bytes(record, header), StandardCharsets.UTF_8);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
