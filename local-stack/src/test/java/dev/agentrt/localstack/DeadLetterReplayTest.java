package dev.agentrt.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentrt.events.Topics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replay on a real broker, with dead letters shaped as spring-kafka writes them. */
class DeadLetterReplayTest {

  @TempDir static Path dataDir;
  private static KafkaBroker kafka;

  @BeforeAll
  static void start() {
    kafka = KafkaBroker.start(dataDir, 0);
    TopicCreator.createAll(kafka.bootstrapServers());
  }

  @AfterAll
  static void stop() {
    kafka.close();
  }

  @Test
  void putsEachDeadLetterBackOnItsTopicOnceWithItsCloudEventsHeadersAndSaysHowMany() {
    long from = endOfDeadLetters();
    deadLetter("task-1", "{\"a\":1}", Topics.TASKS, 2, 10, "agent-init", null);
    deadLetter("task-1", "{\"a\":1}", Topics.TASKS, 2, 10, "finalizer", null);
    deadLetter("chat-1", "{\"b\":2}", Topics.CHAT_MESSAGES, 0, 4, "orchestrator", null);
    deadLetter("big-1", null, Topics.TASKS, 1, 3, "notifier", "value of 1048000 bytes not copied");
    send(new ProducerRecord<>(Topics.DEAD_LETTERS, "stray", "no headers at all"));

    String printed =
        DeadLetterReplay.run(
            List.of(
                "--bootstrap-servers", kafka.bootstrapServers(),
                "--from-offset", Long.toString(from)),
            Map.of());

    assertThat(printed)
        .startsWith("replayed 2 dead letter(s) {agentrt.chat-messages=1, agentrt.tasks=1}")
        .contains("1 copies from other consumer groups left out")
        .contains("skipped offset " + (from + 3) + ": value of 1048000 bytes not copied")
        .contains("skipped offset " + (from + 4) + ": no kafka_dlt-original-topic header")
        .endsWith("next replay: --from-offset " + (from + 5));
    ConsumerRecord<String, String> task = onlyRecordWithKey(Topics.TASKS, "task-1");
    assertThat(task.value()).isEqualTo("{\"a\":1}");
    assertThat(text(task, "ce_type")).isEqualTo("dev.agentrt.TaskCreated");
    assertThat(task.headers())
        .extracting(Header::key)
        .containsExactly("ce_specversion", "ce_type")
        .as("no kafka_dlt-* headers");
    assertThat(onlyRecordWithKey(Topics.CHAT_MESSAGES, "chat-1").value()).isEqualTo("{\"b\":2}");
  }

  /**
   * The relay's dead letters of entries it set aside have no partition or offset: each event is
   * replayed once (two relays may both have dead-lettered it), distinct events all.
   */
  @Test
  void replaysEachOutboxEntryTheRelaySetAsideOnce() {
    long from = endOfDeadLetters();
    setAside("chat-3", "event-3a");
    setAside("chat-3", "event-3a");
    setAside("chat-3", "event-3b");

    String printed =
        DeadLetterReplay.run(
            List.of(
                "--bootstrap-servers", kafka.bootstrapServers(),
                "--from-offset", Long.toString(from)),
            Map.of());

    assertThat(printed)
        .startsWith("replayed 2 dead letter(s) {agentrt.chat-messages=2}")
        .contains("1 copies from other consumer groups left out");
    assertThat(readAll(Topics.CHAT_MESSAGES).stream().filter(r -> "chat-3".equals(r.key())))
        .extracting(r -> text(r, "ce_id"))
        .containsExactlyInAnyOrder("event-3a", "event-3b");
  }

  @Test
  void onlyTheGivenTopicAndNothingInADryRun() {
    long from = endOfDeadLetters();
    deadLetter("task-2", "{}", Topics.TASKS, 0, 1, "agent-init", null);
    deadLetter("call-2", "{}", Topics.TOOL_CALLS, 0, 1, "tool-runner", null);

    String printed =
        DeadLetterReplay.run(
            List.of(
                "--bootstrap-servers",
                kafka.bootstrapServers(),
                "--from-offset",
                Long.toString(from),
                "--topic",
                Topics.TOOL_CALLS,
                "--dry-run"),
            Map.of());

    assertThat(printed)
        .startsWith("would replay 1 dead letter(s) {agentrt.tool-calls=1}")
        .contains("1 from other topics left out");
    assertThat(readAll(Topics.TOOL_CALLS)).noneMatch(r -> "call-2".equals(r.key()));
  }

  @Test
  void refusesUnknownOptionsWithTheUsage() {
    assertThatThrownBy(() -> DeadLetterReplay.run(List.of("--nope"), Map.of()))
        .isInstanceOf(LaunchException.class)
        .hasMessageContaining("unknown option --nope")
        .hasMessageContaining("Usage: ./run.sh --replay-dead-letters");
    assertThat(DeadLetterReplay.run(List.of("--help"), Map.of())).contains("--from-offset N");
  }

  private static void deadLetter(
      String key,
      String value,
      String topic,
      int partition,
      long offset,
      String group,
      String valueDropped) {
    RecordHeaders headers = new RecordHeaders();
    headers.add("ce_specversion", utf8("1.0"));
    headers.add("ce_type", utf8("dev.agentrt.TaskCreated"));
    headers.add("kafka_dlt-exception-message", utf8("TaskCreated violates its schema"));
    headers.add("kafka_dlt-original-topic", utf8(topic));
    headers.add("kafka_dlt-original-partition", ByteBuffer.allocate(4).putInt(partition).array());
    headers.add("kafka_dlt-original-offset", ByteBuffer.allocate(8).putLong(offset).array());
    headers.add("kafka_dlt-original-consumer-group", utf8(group));
    if (valueDropped != null) {
      headers.add("agentrt_dlt-value-dropped", utf8(valueDropped));
    }
    send(new ProducerRecord<>(Topics.DEAD_LETTERS, null, key, value, headers));
  }

  /** As libs/platform {@code DeadLetters.sendUnpublished} writes it. */
  private static void setAside(String key, String eventId) {
    RecordHeaders headers = new RecordHeaders();
    headers.add("ce_id", utf8(eventId));
    headers.add("ce_type", utf8("dev.agentrt.ChatMessageAdded"));
    headers.add("kafka_dlt-original-topic", utf8(Topics.CHAT_MESSAGES));
    headers.add("kafka_dlt-exception-message", utf8("the broker refused it"));
    headers.add("agentrt_dlt-set-aside", utf8("outbox_set_aside/" + eventId));
    send(new ProducerRecord<>(Topics.DEAD_LETTERS, null, key, "{}", headers));
  }

  private static void send(ProducerRecord<String, String> record) {
    try (var producer =
        new KafkaProducer<>(
            Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      producer.send(record).get();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static long endOfDeadLetters() {
    try (var consumer = consumer()) {
      TopicPartition tp = new TopicPartition(Topics.DEAD_LETTERS, 0);
      return consumer.endOffsets(List.of(tp)).get(tp);
    }
  }

  private static ConsumerRecord<String, String> onlyRecordWithKey(String topic, String key) {
    List<ConsumerRecord<String, String>> found =
        readAll(topic).stream().filter(r -> key.equals(r.key())).toList();
    assertThat(found).as("records with key %s on %s", key, topic).hasSize(1);
    return found.getFirst();
  }

  private static List<ConsumerRecord<String, String>> readAll(String topic) {
    try (var consumer = consumer()) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      List<ConsumerRecord<String, String>> records = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))
          && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
      return records;
    }
  }

  private static KafkaConsumer<String, String> consumer() {
    return new KafkaConsumer<>(
        Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()),
        new StringDeserializer(),
        new StringDeserializer());
  }

  private static String text(ConsumerRecord<String, String> record, String header) {
    return new String(record.headers().lastHeader(header).value(), StandardCharsets.UTF_8);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
