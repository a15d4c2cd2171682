package dev.agentrt.systemtests;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** What tests need to see and do on the broker: read topics, re-publish records, measure lag. */
final class Topology {

  private final String bootstrap;

  Topology(String bootstrap) {
    this.bootstrap = bootstrap;
  }

  /** Every record of the topic so far. */
  List<ConsumerRecord<String, byte[]>> readAll(String topic) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ConsumerConfig.GROUP_ID_CONFIG,
            "system-test-" + UUID.randomUUID(),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest");
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
            new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
        Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      Map<TopicPartition, Long> ends = endOffsets(admin, topic);
      consumer.assign(ends.keySet());
      consumer.seekToBeginning(ends.keySet());
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())
          && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  /** Publishes each record again, as a redelivery would: same key, value and headers. */
  void republish(List<ConsumerRecord<String, byte[]>> records) {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
            new StringSerializer(),
            new ByteArraySerializer())) {
      for (ConsumerRecord<String, byte[]> r : records) {
        producer.send(new ProducerRecord<>(r.topic(), null, r.key(), r.value(), r.headers()));
      }
      producer.flush();
    }
  }

  /**
   * True when every consumer group of the services has consumed everything on its topics. The
   * per-instance groups that only hear cancellations ({@code <service>-cancellations-<holder>}) are
   * left out: a stopped instance's group stays behind and falls behind for good, and doing nothing
   * for what it missed is right for it.
   */
  boolean consumersCaughtUp() {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      Set<String> groups =
          admin.listConsumerGroups().all().get().stream()
              .map(ConsumerGroupListing::groupId)
              .filter(g -> !g.startsWith("system-test-") && !g.contains("-cancellations-"))
              .collect(Collectors.toSet());
      for (String group : groups) {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        Set<String> topics =
            committed.keySet().stream().map(TopicPartition::topic).collect(Collectors.toSet());
        for (String topic : topics) {
          for (Map.Entry<TopicPartition, Long> end : endOffsets(admin, topic).entrySet()) {
            OffsetAndMetadata at = committed.get(end.getKey());
            long position = at == null ? 0 : at.offset();
            if (position < end.getValue()) {
              return false;
            }
          }
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException e) {
      return false;
    }
  }

  /**
   * The consumers of a service's consumer group that have partitions: as many per running copy of
   * the service as its binder's concurrency, while the partitions go round.
   */
  long consumersWithPartitions(String group) {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      return admin.describeConsumerGroups(List.of(group)).all().get().get(group).members().stream()
          .filter(m -> !m.assignment().topicPartitions().isEmpty())
          .count();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<TopicPartition, Long> endOffsets(Admin admin, String topic) {
    try {
      int partitions =
          admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
      Map<TopicPartition, OffsetSpec> request = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        request.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      Map<TopicPartition, Long> ends = new HashMap<>();
      for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e :
          admin.listOffsets(request).all().get().entrySet()) {
        ends.put(e.getKey(), e.getValue().offset());
      }
      return ends;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }
}
