package dev.agentrt.bench;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.Document;

/**
 * Scenario 1, the floor: what one Kafka hop and one MongoDB write cost on this broker and server,
 * measured from this JVM one at a time (no load besides the idle services). Kafka: produce (linger
 * 0, acks all as the services' producers) until the consumer (polling all the time) has the record.
 * MongoDB: an insert, and a conditional update of that document ({@code status: pending → running},
 * the claim pattern).
 */
final class Floor {

  static final String TOPIC = "bench.floor";

  /**
   * @param conversationRead a read the agent loop makes at every wake, for comparison: one
   *     sub-agent's messages ({@code find {subAgentId} sort seq}) among all stored so far
   * @param storedMessages how many sub-agent messages were stored when it was measured
   */
  record Result(
      Stats kafkaRoundTrip,
      Stats mongoInsert,
      Stats mongoConditionalUpdate,
      Stats conversationRead,
      long storedMessages) {}

  private Floor() {}

  static Result measure(String bootstrapServers, MongoDatabase db, int warmup, int samples) {
    createTopic(bootstrapServers);
    List<Double> kafka = kafkaRoundTrips(bootstrapServers, warmup, samples);
    MongoCollection<Document> docs = db.getCollection("bench_floor");
    List<Double> inserts = new ArrayList<>();
    List<Double> updates = new ArrayList<>();
    for (int i = 0; i < warmup + samples; i++) {
      String id = UUID.randomUUID().toString();
      long t0 = System.nanoTime();
      docs.insertOne(new Document("_id", id).append("status", "pending").append("n", i));
      long t1 = System.nanoTime();
      docs.updateOne(
          Filters.and(Filters.eq("_id", id), Filters.eq("status", "pending")),
          Updates.set("status", "running"));
      long t2 = System.nanoTime();
      if (i >= warmup) {
        inserts.add(ms(t1 - t0));
        updates.add(ms(t2 - t1));
      }
    }
    docs.drop();
    MongoCollection<Document> messages = db.getCollection("sub_agent_messages");
    List<Double> reads = new ArrayList<>();
    Document any = messages.find().first();
    if (any != null) {
      for (int i = 0; i < warmup / 4 + samples / 4; i++) {
        long t0 = System.nanoTime();
        messages
            .find(Filters.eq("subAgentId", any.get("subAgentId")))
            .sort(new Document("seq", 1))
            .into(new ArrayList<>());
        if (i >= warmup / 4) {
          reads.add(ms(System.nanoTime() - t0));
        }
      }
    }
    return new Result(
        Stats.of(kafka),
        Stats.of(inserts),
        Stats.of(updates),
        Stats.of(reads),
        messages.countDocuments());
  }

  private static List<Double> kafkaRoundTrips(String bootstrap, int warmup, int samples) {
    Properties producerProps = new Properties();
    producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    Properties consumerProps = new Properties();
    consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    consumerProps.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    consumerProps.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    AtomicReference<CompletableFuture<Long>> waiting = new AtomicReference<>();
    AtomicBoolean polling = new AtomicBoolean(true);
    List<Double> roundTrips = new ArrayList<>();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerProps);
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(consumerProps)) {
      TopicPartition partition = new TopicPartition(TOPIC, 0);
      consumer.assign(List.of(partition));
      consumer.seekToEnd(List.of(partition));
      consumer.position(partition);
      Thread poller =
          Thread.ofPlatform()
              .name("floor-consumer")
              .start(
                  () -> {
                    while (polling.get()) {
                      for (ConsumerRecord<String, byte[]> r :
                          consumer.poll(Duration.ofMillis(50))) {
                        long arrived = System.nanoTime();
                        CompletableFuture<Long> f = waiting.get();
                        if (f != null && r.key().equals(String.valueOf(f.hashCode()))) {
                          f.complete(arrived);
                        }
                      }
                    }
                  });
      try {
        for (int i = 0; i < warmup + samples; i++) {
          CompletableFuture<Long> arrival = new CompletableFuture<>();
          waiting.set(arrival);
          long sent = System.nanoTime();
          producer.send(
              new ProducerRecord<>(TOPIC, 0, String.valueOf(arrival.hashCode()), new byte[256]));
          long arrived = arrival.get(10, TimeUnit.SECONDS);
          if (i >= warmup) {
            roundTrips.add(ms(arrived - sent));
          }
        }
      } catch (Exception e) {
        throw new IllegalStateException("Kafka round trip failed: " + e, e);
      } finally {
        polling.set(false);
        try {
          poller.join(5_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    return roundTrips;
  }

  private static void createTopic(String bootstrap) {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      if (!admin.listTopics().names().get().contains(TOPIC)) {
        admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot create " + TOPIC + ": " + e, e);
    }
  }

  static double ms(long nanos) {
    return nanos / 1_000_000.0;
  }
}
