package dev.agentrt.platform.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.LaterUpdates;
import dev.agentrt.platform.messaging.DeadLetters;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.messaging.IncomingEvents;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/** The outbox and its relay on a real KRaft broker and a real MongoDB-protocol server. */
class OutboxTest {

  private static final String COLLECTION = "chat_messages";
  private static final String OTHER_COLLECTION = "tasks";
  private static final EventCodec CODEC = new EventCodec();

  private static EmbeddedKafkaKraftBroker kafka;
  private static MongoServer mongoServer;
  private static MongoClient mongoClient;
  private static MongoTemplate mongo;

  private static Outbox outbox;
  private static EventPublisher publisher;
  private static DeadLetters deadLetters;

  @BeforeAll
  static void start() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1, Topics.CHAT_MESSAGES, Topics.DEAD_LETTERS);
    kafka.afterPropertiesSet();
    mongoServer = new MongoServer(new MemoryBackend());
    mongoClient = MongoClients.create("mongodb://127.0.0.1:" + mongoServer.bind().getPort());
    mongo = new MongoTemplate(mongoClient, "agentrt");
    KafkaTemplate<String, byte[]> template =
        new KafkaTemplate<>(
            new DefaultKafkaProducerFactory<>(
                Map.of("bootstrap.servers", kafka.getBrokersAsString()),
                new StringSerializer(),
                new ByteArraySerializer()));
    publisher = new EventPublisher(template, "test");
    deadLetters = new DeadLetters(template);
    outbox = new Outbox(publisher, mongo);
  }

  @AfterAll
  static void stop() {
    mongoClient.close();
    mongoServer.shutdownNow();
    kafka.destroy();
  }

  @Test
  void publishesEachEntryAsAnEventConsumersCanReadThenEmptiesTheOutbox() {
    Event event = added(Instant.now());
    String docId = storeWithOutbox(event);

    outbox.publish(COLLECTION, docId, List.of(OutboxEntry.of(event, CODEC)));

    assertThat(new IncomingEvents(CODEC).decode(consumeOne(event.key()))).isEqualTo(event);
    assertThat(outboxOf(docId)).isEmpty();
  }

  @Test
  void withBulkWritesTheOutboxIsEmptyWhenPublishReturns() {
    Event event = added(Instant.now());
    String docId = storeWithOutbox(event);
    try (BulkWrites updates = new BulkWrites(mongo)) {
      new Outbox(publisher, mongo, updates)
          .publish(COLLECTION, docId, List.of(OutboxEntry.of(event, CODEC)));

      assertThat(outboxOf(docId)).isEmpty();
      assertThat(new IncomingEvents(CODEC).decode(consumeOne(event.key()))).isEqualTo(event);
    }
  }

  /**
   * In a collection whose removals are made later, publish returns with the entries still there
   * (the delay is a minute: only {@code close} makes them sooner), and the removals queued
   * meanwhile go out in one write; another collection's entries are gone when publish returns.
   */
  @Test
  void removalsMadeLaterGoOutTogetherOffThePublishersPath() {
    List<Event> events = new ArrayList<>();
    List<String> docs = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      events.add(added(Instant.now()));
      docs.add(storeWithOutbox(events.getLast()));
    }
    Event task = added(Instant.now());
    String taskDoc = store(OTHER_COLLECTION, List.of(OutboxEntry.of(task, CODEC)));
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Metrics.addRegistry(meters);
    try (BulkWrites updates = new BulkWrites(mongo)) {
      LaterUpdates removals = new LaterUpdates(updates, "outbox-removals", Duration.ofMinutes(1));
      Outbox later = new Outbox(publisher, mongo, updates, List.of(COLLECTION), removals);
      for (int i = 0; i < docs.size(); i++) {
        later.publish(COLLECTION, docs.get(i), List.of(OutboxEntry.of(events.get(i), CODEC)));
        assertThat(outboxOf(docs.get(i))).as("removed later, not waited for").hasSize(1);
      }
      later.publish(OTHER_COLLECTION, taskDoc, List.of(OutboxEntry.of(task, CODEC)));
      assertThat(outboxOf(OTHER_COLLECTION, taskDoc)).as("waited for").isEmpty();
      assertThat(new IncomingEvents(CODEC).decode(consumeOne(events.getLast().key())))
          .isEqualTo(events.getLast());

      removals.close();

      assertThat(docs).allSatisfy(doc -> assertThat(outboxOf(doc)).isEmpty());
      DistributionSummary writes =
          meters.get("agentrt.group-commit.items").tag("writer", "outbox-removals").summary();
      assertThat(writes.count()).isEqualTo(1);
      assertThat(writes.totalAmount()).isEqualTo(20);
    } finally {
      Metrics.removeRegistry(meters);
    }
  }

  @Test
  void removalsMadeLaterAreMadeWithinTheirDelay() {
    Event event = added(Instant.now());
    String docId = storeWithOutbox(event);
    try (BulkWrites updates = new BulkWrites(mongo);
        LaterUpdates removals =
            new LaterUpdates(updates, "outbox-removals", Duration.ofMillis(50))) {
      new Outbox(publisher, mongo, updates, List.of(COLLECTION), removals)
          .publish(COLLECTION, docId, List.of(OutboxEntry.of(event, CODEC)));

      await().atMost(Duration.ofSeconds(10)).until(() -> outboxOf(docId).isEmpty());
    }
  }

  @Test
  void relayPublishesWhatWasLeftBehindButNotWhatItsWriterIsStillPublishing() {
    Instant now = Instant.parse("2026-11-22T12:00:00Z");
    Event leftBehind = added(now.minusSeconds(10));
    Event inFlight = added(now.minusMillis(500));
    String leftBehindDoc = storeWithOutbox(leftBehind);
    String inFlightDoc = storeWithOutbox(inFlight);
    OutboxRelay relay = relay(now, 5);

    assertThat(relay.relay(COLLECTION)).isEqualTo(1);

    assertThat(outboxOf(leftBehindDoc)).isEmpty();
    assertThat(outboxOf(inFlightDoc)).hasSize(1);
    assertThat(new IncomingEvents(CODEC).decode(consumeOne(leftBehind.key())))
        .isEqualTo(leftBehind);
  }

  /**
   * A record over the producer's {@code max.request.size} (1 MiB) can never be published. Before
   * each relay pass fails on it, the entry beside it and the later document's are published; after
   * its third failed attempt it is set aside with the reason and dead-lettered.
   */
  @Test
  void anEntryThatCanNeverBePublishedIsSetAsideAndHoldsUpNoOther() {
    Instant now = Instant.parse("2026-11-22T12:00:00Z");
    Event besideIt = added(now.minusSeconds(10));
    OutboxEntry tooLarge =
        new OutboxEntry(
            UUID.randomUUID().toString(),
            besideIt.type().ceType(),
            Topics.CHAT_MESSAGES,
            "too-large-" + UUID.randomUUID(),
            now.minusSeconds(10),
            "x".repeat(1_100_000),
            null);
    String failingDoc = store(List.of(tooLarge, OutboxEntry.of(besideIt, CODEC)));
    Event later = added(now.minusSeconds(5));
    String laterDoc = storeWithOutbox(later);
    OutboxRelay relay = relay(now, 3);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    relay.measure(meters);

    relay.relay(COLLECTION);

    assertThat(meters.get("agentrt.outbox.stale").tag("collection", COLLECTION).gauge().value())
        .as("the three events the pass found waiting")
        .isGreaterThanOrEqualTo(3);
    assertThat(outboxOf(laterDoc)).isEmpty();
    assertThat(new IncomingEvents(CODEC).decode(consumeOne(later.key()))).isEqualTo(later);
    assertThat(new IncomingEvents(CODEC).decode(consumeOne(besideIt.key()))).isEqualTo(besideIt);
    assertThat(outboxOf(failingDoc))
        .singleElement()
        .satisfies(e -> assertThat(((Document) e).getInteger("attempts")).isEqualTo(1));

    relay.relay(COLLECTION);
    assertThat(outboxOf(failingDoc)).hasSize(1);
    relay.relay(COLLECTION);

    assertThat(outboxOf(failingDoc)).isEmpty();
    Document setAside =
        mongo
            .getCollection(FailedEntries.COLLECTION)
            .find(new Document("_id", tooLarge.eventId()))
            .first();
    assertThat(setAside.getString("collection")).isEqualTo(COLLECTION);
    assertThat(setAside.getString("documentId")).isEqualTo(failingDoc);
    assertThat(setAside.getInteger("attempts")).isEqualTo(3);
    assertThat(setAside.getString("reason")).contains("RecordTooLargeException");
    assertThat(setAside.get("entry", Document.class).getString("payload")).hasSize(1_100_000);
    ConsumerRecord<String, byte[]> letter = consumeOne(Topics.DEAD_LETTERS, tooLarge.key());
    assertThat(header(letter, "kafka_dlt-original-topic")).isEqualTo(Topics.CHAT_MESSAGES);
    assertThat(header(letter, "kafka_dlt-exception-message")).contains("1100");
    assertThat(header(letter, "ce_id")).isEqualTo(tooLarge.eventId());
    assertThat(header(letter, DeadLetters.SET_ASIDE))
        .isEqualTo(FailedEntries.COLLECTION + "/" + tooLarge.eventId());
    assertThat(header(letter, DeadLetters.VALUE_DROPPED))
        .contains("kept in " + FailedEntries.COLLECTION);
  }

  private static OutboxRelay relay(Instant now, int maxAttempts) {
    return new OutboxRelay(
        outbox,
        publisher,
        deadLetters,
        mongo,
        new OutboxProperties(
            List.of(COLLECTION), Duration.ofSeconds(2), maxAttempts, List.of(), Duration.ZERO),
        Clock.fixed(now, java.time.ZoneOffset.UTC));
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    return new String(
        record.headers().lastHeader(name).value(), java.nio.charset.StandardCharsets.UTF_8);
  }

  private static ChatMessageAdded added(Instant at) {
    String chatId = "chat-" + UUID.randomUUID();
    return new ChatMessageAdded(UUID.randomUUID().toString(), at, chatId, "m-1", "user", null);
  }

  private static String storeWithOutbox(Event event) {
    return store(List.of(OutboxEntry.of(event, CODEC)));
  }

  private static String store(List<OutboxEntry> entries) {
    return store(COLLECTION, entries);
  }

  private static String store(String collection, List<OutboxEntry> entries) {
    String id = UUID.randomUUID().toString();
    Document doc = new Document("_id", id);
    mongo.getConverter().write(new Holder(entries), doc);
    doc.put("_id", id);
    doc.remove("_class");
    mongo.getCollection(collection).insertOne(doc);
    return id;
  }

  record Holder(List<OutboxEntry> outbox) {}

  private static List<?> outboxOf(String docId) {
    return outboxOf(COLLECTION, docId);
  }

  private static List<?> outboxOf(String collection, String docId) {
    Document doc = mongo.getCollection(collection).find(new Document("_id", docId)).first();
    return doc.getList(Outbox.FIELD, Object.class);
  }

  /** The one record with this key on the chat topic. */
  private static ConsumerRecord<String, byte[]> consumeOne(String key) {
    return consumeOne(Topics.CHAT_MESSAGES, key);
  }

  /** The one record with this key on the topic. */
  private static ConsumerRecord<String, byte[]> consumeOne(String topic, String key) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBrokersAsString(),
            ConsumerConfig.GROUP_ID_CONFIG, UUID.randomUUID().toString(),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      List<ConsumerRecord<String, byte[]>> matching = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (matching.isEmpty() && System.nanoTime() < deadline) {
        consumer
            .poll(Duration.ofMillis(200))
            .forEach(
                r -> {
                  if (key.equals(r.key())) {
                    matching.add(r);
                  }
                });
      }
      assertThat(matching).hasSize(1);
      return matching.getFirst();
    }
  }
}
