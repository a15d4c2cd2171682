package dev.agentrt.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.agentrt.events.TopicCatalog;
import dev.agentrt.events.TopicSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaBrokerTest {

  private static final TopicSpec TOPIC = TopicCatalog.topics().getFirst();

  @Test
  void keepsTopicsAndRecordsAcrossRestarts(@TempDir Path dataDir) throws Exception {
    try (KafkaBroker broker = KafkaBroker.start(dataDir, 0)) {
      assertThat(broker.bootstrapServers()).matches("127\\.0\\.0\\.1:\\d+");
      TopicCreator.createAll(broker.bootstrapServers());
      TopicCreator.createAll(broker.bootstrapServers());
      try (var producer = producer(broker)) {
        producer.send(new ProducerRecord<>(TOPIC.name(), "key-1", "hello")).get();
      }
      assertThat(readAll(broker)).extracting(ConsumerRecord::value).containsExactly("hello");
    }

    try (KafkaBroker broker = KafkaBroker.start(dataDir, 0);
        Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      var topics = admin.describeTopics(admin.listTopics().names().get()).allTopicNames().get();
      assertThat(topics.keySet())
          .containsExactlyInAnyOrderElementsOf(
              TopicCatalog.topics().stream().map(TopicSpec::name).toList());
      TopicCatalog.topics()
          .forEach(
              spec -> assertThat(topics.get(spec.name()).partitions()).hasSize(spec.partitions()));
      assertThat(readAll(broker)).extracting(ConsumerRecord::value).containsExactly("hello");
    }
  }

  @Test
  void startsAgainOnTheSamePortWithItsRecords(@TempDir Path dataDir) throws Exception {
    KafkaBroker first = KafkaBroker.start(dataDir, 0);
    TopicCreator.createAll(first.bootstrapServers());
    try (var producer = producer(first)) {
      producer.send(new ProducerRecord<>(TOPIC.name(), "key-1", "before")).get();
    }
    assertThatThrownBy(first::startAgain).hasMessageContaining("still running");
    first.close();

    try (KafkaBroker again = first.startAgain()) {
      assertThat(again.bootstrapServers()).isEqualTo(first.bootstrapServers());
      assertThat(readAll(again)).extracting(ConsumerRecord::value).containsExactly("before");
    }
  }

  private static KafkaProducer<String, String> producer(KafkaBroker broker) {
    return new KafkaProducer<>(
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
        new StringSerializer(),
        new StringSerializer());
  }

  private static List<ConsumerRecord<String, String>> readAll(KafkaBroker broker) {
    try (var consumer =
        new KafkaConsumer<>(
            Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "test-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest"),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of(TOPIC.name()));
      List<ConsumerRecord<String, String>> records = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return !records.isEmpty();
              });
      return records;
    }
  }
}
