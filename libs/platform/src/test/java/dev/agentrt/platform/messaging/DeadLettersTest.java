package dev.agentrt.platform.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.events.InvalidEventException;
import dev.agentrt.events.Topics;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/** Dead letters on a real KRaft broker, including a record too large to be copied. */
class DeadLettersTest {

  private static EmbeddedKafkaKraftBroker kafka;
  private static DeadLetters deadLetters;

  @BeforeAll
  static void start() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1, Topics.DEAD_LETTERS);
    kafka.afterPropertiesSet();
    deadLetters =
        new DeadLetters(
            new KafkaTemplate<>(
                new DefaultKafkaProducerFactory<>(
                    Map.of("bootstrap.servers", kafka.getBrokersAsString()),
                    new StringSerializer(),
                    new ByteArraySerializer())));
  }

  @AfterAll
  static void stop() {
    kafka.destroy();
  }

  @Test
  void aRecordGoesWithItsValueReasonAndOrigin() {
    byte[] value = "not json".getBytes(StandardCharsets.UTF_8);

    deadLetters.accept(record("small", value, 3, 42), null, new InvalidEventException("not JSON"));

    ConsumerRecord<String, byte[]> letter = deadLetter("small");
    assertThat(letter.value()).isEqualTo(value);
    assertThat(header(letter, "kafka_dlt-exception-message")).isEqualTo("not JSON");
    assertThat(header(letter, "kafka_dlt-original-topic")).isEqualTo(Topics.TASKS);
    assertThat(letter.headers().lastHeader("kafka_dlt-exception-stacktrace")).isNotNull();
    assertThat(letter.headers().lastHeader(DeadLetters.VALUE_DROPPED)).isNull();
  }

  /** With its stack trace header the copy would exceed the producer's 1 MiB maximum. */
  @Test
  void aLargeRecordGoesWithItsValueButWithoutTheStackTrace() {
    byte[] value = new byte[1_047_500];

    deadLetters.accept(record("large", value, 1, 5), null, new InvalidEventException("large"));

    ConsumerRecord<String, byte[]> letter = deadLetter("large");
    assertThat(letter.value()).hasSize(value.length);
    assertThat(header(letter, "kafka_dlt-exception-message")).isEqualTo("large");
    assertThat(letter.headers().lastHeader("kafka_dlt-exception-stacktrace")).isNull();
    assertThat(letter.headers().lastHeader(DeadLetters.VALUE_DROPPED)).isNull();
  }

  /** Even without the stack trace the copy would exceed the maximum. */
  @Test
  void aRecordTooLargeToCopyGoesWithoutItsValueSayingWhereTheOriginalIs() {
    byte[] value = new byte[1_048_400];

    deadLetters.accept(record("huge", value, 2, 7), null, new InvalidEventException("too big"));

    ConsumerRecord<String, byte[]> letter = deadLetter("huge");
    assertThat(letter.value()).isNull();
    assertThat(header(letter, "kafka_dlt-exception-message")).isEqualTo("too big");
    assertThat(header(letter, "kafka_dlt-original-topic")).isEqualTo(Topics.TASKS);
    assertThat(header(letter, DeadLetters.VALUE_DROPPED))
        .isEqualTo(
            "value of 1048400 bytes not copied, too large for the dead-letter topic;"
                + " the original is agentrt.tasks-2@7");
  }

  private static ConsumerRecord<String, byte[]> record(
      String key, byte[] value, int partition, long offset) {
    RecordHeaders headers = new RecordHeaders();
    headers.add("ce_type", "dev.agentrt.TaskCreated".getBytes(StandardCharsets.UTF_8));
    return new ConsumerRecord<>(
        Topics.TASKS,
        partition,
        offset,
        0L,
        TimestampType.CREATE_TIME,
        key.length(),
        value.length,
        key,
        value,
        headers,
        Optional.empty());
  }

  private static ConsumerRecord<String, byte[]> deadLetter(String key) {
    return DeadLetterTopic.deadLetter(kafka.getBrokersAsString(), key);
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    return DeadLetterTopic.text(record, name);
  }
}
