package dev.agentrt.agentloop;

import static org.awaitility.Awaitility.await;

import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.utils.KafkaTestUtils;

/** The events a test's broker holds on a topic, read from its start. */
final class Published {

  private static final EventCodec CODEC = new EventCodec();

  /**
   * The events on {@code topic} under {@code key}, decoded, once at least {@code atLeast} are there
   * (all those there then).
   */
  static List<Event> on(EmbeddedKafkaBroker kafka, String topic, String key, int atLeast) {
    Map<String, Object> props =
        KafkaTestUtils.consumerProps(kafka.getBrokersAsString(), "test-" + UUID.randomUUID());
    props.put("auto.offset.reset", "earliest");
    try (Consumer<String, byte[]> consumer =
        new DefaultKafkaConsumerFactory<>(
                props, new StringDeserializer(), new ByteArrayDeserializer())
            .createConsumer()) {
      consumer.subscribe(List.of(topic));
      List<ConsumerRecord<String, byte[]>> seen = new ArrayList<>();
      await()
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
                return seen.stream().filter(r -> r.key().equals(key)).count() >= atLeast;
              });
      return seen.stream()
          .filter(r -> r.key().equals(key))
          .map(
              r ->
                  CODEC.decode(
                      new String(r.headers().lastHeader("ce_type").value(), StandardCharsets.UTF_8),
                      r.value()))
          .toList();
    }
  }

  private Published() {}
}
