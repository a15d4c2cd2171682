package dev.agentrt.platform.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.events.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads {@code agentrt.dead-letters} in the tests: the dead letter of a key, its headers. */
final class DeadLetterTopic {

  private DeadLetterTopic() {}

  /** The one dead letter of the key, waiting up to 30 s for it. */
  static ConsumerRecord<String, byte[]> deadLetter(String bootstrapServers, String key) {
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                "bootstrap.servers",
                bootstrapServers,
                "group.id",
                "test-" + UUID.randomUUID(),
                "auto.offset.reset",
                "earliest"),
            new StringDeserializer(),
            new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(Topics.DEAD_LETTERS));
      List<ConsumerRecord<String, byte[]>> found = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (found.isEmpty() && System.nanoTime() < deadline) {
        consumer
            .poll(Duration.ofMillis(200))
            .forEach(
                r -> {
                  if (key.equals(r.key())) {
                    found.add(r);
                  }
                });
      }
      assertThat(found).as("dead letter %s", key).hasSize(1);
      return found.getFirst();
    }
  }

  static byte[] bytes(ConsumerRecord<String, byte[]> record, String header) {
    assertThat(record.headers().lastHeader(header)).as("header %s", header).isNotNull();
    return record.headers().lastHeader(header).value();
  }

  static String text(ConsumerRecord<String, byte[]> record, String header) {
    return new String(bytes(record, header), StandardCharsets.UTF_8);
  }
}
