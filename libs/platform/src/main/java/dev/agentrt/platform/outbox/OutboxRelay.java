package dev.agentrt.platform.outbox;

import dev.agentrt.platform.messaging.DeadLetters;
import dev.agentrt.platform.messaging.EventPublisher;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Republishes what a crash left in outboxes: entries older than the grace period (so it does not
 * race the writer that is about to publish them). Safe with any number of copies running: at worst
 * an event is published twice, which consumers tolerate.
 *
 * <p>Each entry is published on its own: one that fails has its attempt counted and, after {@code
 * agentrt.outbox.max-attempts}, is set aside ({@link FailedEntries}); the entries beside and after
 * it are published all the same.
 */
public class OutboxRelay {

  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
  private static final int BATCH = 100;

  private final Outbox outbox;
  private final EventPublisher publisher;
  private final FailedEntries failures;
  private final MongoTemplate mongo;
  private final List<String> collections;
  private final Duration grace;
  private final Clock clock;
  private final Map<String, AtomicInteger> waiting = new ConcurrentHashMap<>();

  public OutboxRelay(
      Outbox outbox,
      EventPublisher publisher,
      DeadLetters deadLetters,
      MongoTemplate mongo,
      OutboxProperties properties,
      Clock clock) {
    this.outbox = outbox;
    this.publisher = publisher;
    this.failures =
        new FailedEntries(mongo, publisher, deadLetters, properties.maxAttempts(), clock);
    this.mongo = mongo;
    this.collections = List.copyOf(properties.collections());
    this.grace = properties.grace();
    this.clock = clock;
  }

  @Scheduled(
      fixedDelayString = "${agentrt.outbox.relay-interval:1s}",
      initialDelayString = "${agentrt.outbox.relay-interval:1s}")
  public void relayStale() {
    for (String collection : collections) {
      try {
        relay(collection);
      } catch (RuntimeException e) {
        log.warn("outbox relay of {} failed, will retry: {}", collection, e.getMessage());
      }
    }
  }

  /**
   * Serves, per collection, how many events its last pass found waiting past the grace ({@code
   * agentrt.outbox.stale}): events their writer did not publish (it crashed, or the broker was
   * away), at most a pass's batch of documents' worth.
   */
  public void measure(MeterRegistry meters) {
    for (String collection : collections) {
      Gauge.builder(
              "agentrt.outbox.stale",
              waiting.computeIfAbsent(collection, c -> new AtomicInteger()),
              AtomicInteger::get)
          .description("Outbox events the relay's last pass found waiting past the grace")
          .tag("collection", collection)
          .register(meters);
    }
  }

  /** Publishes the stale entries of one collection; returns how many documents it handled. */
  public int relay(String collection) {
    Query stale =
        Query.query(Criteria.where(Outbox.FIELD + ".occurredAt").lt(clock.instant().minus(grace)))
            .limit(BATCH);
    stale.fields().include(Outbox.FIELD);
    List<Document> documents = mongo.find(stale, Document.class, collection);
    waiting
        .computeIfAbsent(collection, c -> new AtomicInteger())
        .set(
            documents.stream().mapToInt(d -> d.getList(Outbox.FIELD, Document.class).size()).sum());
    for (Document document : documents) {
      Object id = document.get("_id");
      List<OutboxEntry> entries =
          document.getList(Outbox.FIELD, Document.class).stream()
              .map(d -> mongo.getConverter().read(OutboxEntry.class, d))
              .toList();
      log.info("relaying {} event(s) of {}/{}", entries.size(), collection, id);
      List<CompletableFuture<?>> sends = entries.stream().map(this::send).toList();
      List<String> published = new ArrayList<>();
      for (int i = 0; i < entries.size(); i++) {
        Throwable failure = awaitAck(sends.get(i));
        if (failure == null) {
          published.add(entries.get(i).eventId());
        } else {
          failures.failed(collection, id, entries.get(i), failure);
        }
      }
      outbox.remove(collection, id, published);
    }
    return documents.size();
  }

  private CompletableFuture<?> send(OutboxEntry entry) {
    try {
      return publisher.send(entry);
    } catch (RuntimeException refused) {
      return CompletableFuture.failedFuture(refused);
    }
  }

  /** Why the send failed (its innermost cause), or null once the broker acknowledged it. */
  private static Throwable awaitAck(CompletableFuture<?> send) {
    try {
      send.get(Outbox.SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return e;
    } catch (ExecutionException e) {
      return NestedExceptionUtils.getMostSpecificCause(e);
    } catch (TimeoutException e) {
      return e;
    }
  }
}
