package dev.agentrt.platform.outbox;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.LaterUpdates;
import dev.agentrt.platform.messaging.EventPublisher;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Publishes the events a document carries in its {@code outbox} field, then removes them from it. A
 * crash in between leaves the entries in place for {@link OutboxRelay}; consumers are idempotent,
 * so publishing an entry twice is harmless.
 *
 * <p>The removal is waited for, so that a document's outbox read after its entries were published
 * no longer holds them and publishing it again sends only what is new (a task's, as it is
 * cancelled: its earlier events must not go out again after the newer). In the collections whose
 * removals are made later ({@code agentrt.outbox.removed-later}), whose writers publish what they
 * just wrote and never an outbox read back, it is not: the removals of {@code removal-delay} go out
 * together, one bulk update per collection ({@link LaterUpdates}), off the publisher's path. One
 * lost or late (past the relay's grace) has its entries published again by the relay.
 */
public class Outbox {

  /** The field every document that triggers work carries. */
  public static final String FIELD = "outbox";

  static final Duration SEND_TIMEOUT = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(Outbox.class);

  private final EventPublisher publisher;
  private final MongoTemplate mongo;
  private final @Nullable BulkWrites removals;
  private final Set<String> removedLater;
  private final @Nullable LaterUpdates later;

  /** An outbox that removes published entries with a write of its own. */
  public Outbox(EventPublisher publisher, MongoTemplate mongo) {
    this(publisher, mongo, null);
  }

  /**
   * An outbox that removes published entries in the same bulk write as other documents' updates
   * queued meanwhile (null: with a write of its own).
   */
  public Outbox(EventPublisher publisher, MongoTemplate mongo, @Nullable BulkWrites removals) {
    this(publisher, mongo, removals, Set.of(), null);
  }

  /**
   * An outbox that removes the published entries of documents in {@code removedLater} with {@code
   * later} (required then: the process's updates made later, many in one write, not waited for),
   * and the others' as {@link #Outbox(EventPublisher, MongoTemplate, BulkWrites)} does.
   */
  public Outbox(
      EventPublisher publisher,
      MongoTemplate mongo,
      @Nullable BulkWrites removals,
      Collection<String> removedLater,
      @Nullable LaterUpdates later) {
    if (!removedLater.isEmpty() && later == null) {
      throw new IllegalArgumentException("removals made later go out through later updates");
    }
    this.publisher = publisher;
    this.mongo = mongo;
    this.removals = removals;
    this.removedLater = Set.copyOf(removedLater);
    this.later = later;
  }

  /**
   * As {@link #publish}, for a writer whose work is done once the document is stored: when the
   * broker does not acknowledge in time, the entries stay in the document and {@link OutboxRelay}
   * publishes them later; that is logged, not thrown.
   */
  public void publishOrLeaveToRelay(
      String collection, Object documentId, List<OutboxEntry> entries) {
    publishOrLeaveToRelay(collection, documentId, entries, Map.of());
  }

  /** {@link #publishOrLeaveToRelay(String, Object, List)} with {@code headers} on every record. */
  public void publishOrLeaveToRelay(
      String collection,
      Object documentId,
      List<OutboxEntry> entries,
      Map<String, String> headers) {
    try {
      publish(collection, documentId, entries, headers);
    } catch (OutboxPublishException e) {
      log.warn("{}; the relay will publish it", e.getMessage());
    }
  }

  /**
   * Sends the entries and, once the broker has acknowledged all of them, removes them from the
   * document.
   *
   * @throws OutboxPublishException when the broker does not acknowledge in time; the entries stay
   *     in the document
   */
  public void publish(String collection, Object documentId, List<OutboxEntry> entries) {
    publish(collection, documentId, entries, Map.of());
  }

  /**
   * {@link #publish(String, Object, List)} with {@code headers} on every record: what the publisher
   * knows as it publishes, which an entry published again by the relay goes without.
   */
  public void publish(
      String collection,
      Object documentId,
      List<OutboxEntry> entries,
      Map<String, String> headers) {
    if (entries.isEmpty()) {
      return;
    }
    CompletableFuture<?>[] sends =
        entries.stream()
            .map(entry -> publisher.send(entry, headers))
            .toArray(CompletableFuture[]::new);
    try {
      CompletableFuture.allOf(sends).get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OutboxPublishException(collection, documentId, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new OutboxPublishException(collection, documentId, e);
    }
    remove(collection, documentId, entries.stream().map(OutboxEntry::eventId).toList());
  }

  /**
   * Removes the entries with these event ids from the document's outbox, and waits for it; in a
   * collection whose removals are made later, queues it (see the class). A removal that fails is
   * logged: the relay publishes those entries again once past its grace, which consumers tolerate.
   */
  void remove(String collection, Object documentId, List<String> eventIds) {
    if (eventIds.isEmpty()) {
      return;
    }
    // The driver directly: the id is matched exactly as stored, never converted.
    Bson document = Filters.eq("_id", documentId);
    Bson pull = pull(eventIds);
    if (later != null && removedLater.contains(collection)) {
      later.queue(
          new BulkWrites.Update(document, pull, collection),
          failure -> notRemoved(collection, documentId, failure));
      return;
    }
    if (removals == null) {
      mongo.getCollection(collection).updateOne(document, pull);
      return;
    }
    try {
      removals.update(document, pull, collection);
    } catch (RuntimeException e) {
      notRemoved(collection, documentId, e);
    }
  }

  private static Bson pull(List<String> eventIds) {
    return Updates.pull(FIELD, Filters.in("eventId", eventIds));
  }

  private static void notRemoved(String collection, Object documents, Throwable why) {
    log.warn(
        "published outbox entries of {}/{} not removed; the relay publishes them again: {}",
        collection,
        documents,
        why.toString());
  }
}
