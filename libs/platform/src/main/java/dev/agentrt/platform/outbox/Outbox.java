package dev.agentrt.platform.outbox;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.messaging.EventPublisher;
import java.time.Duration;
import java.util.List;
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
 */
public class Outbox {

  /** The field every document that triggers work carries. */
  public static final String FIELD = "outbox";

  static final Duration SEND_TIMEOUT = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(Outbox.class);

  private final EventPublisher publisher;
  private final MongoTemplate mongo;
  private final @Nullable BulkWrites removals;

  /** An outbox that removes published entries with a write of its own. */
  public Outbox(EventPublisher publisher, MongoTemplate mongo) {
    this(publisher, mongo, null);
  }

  /**
   * An outbox that removes published entries in the same bulk write as other documents' updates
   * queued meanwhile (null: with a write of its own).
   */
  public Outbox(EventPublisher publisher, MongoTemplate mongo, @Nullable BulkWrites removals) {
    this.publisher = publisher;
    this.mongo = mongo;
    this.removals = removals;
  }

  /**
   * As {@link #publish}, for a writer whose work is done once the document is stored: when the
   * broker does not acknowledge in time, the entries stay in the document and {@link OutboxRelay}
   * publishes them later; that is logged, not thrown.
   */
  public void publishOrLeaveToRelay(
      String collection, Object documentId, List<OutboxEntry> entries) {
    try {
      publish(collection, documentId, entries);
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
    if (entries.isEmpty()) {
      return;
    }
    CompletableFuture<?>[] sends =
        entries.stream().map(publisher::send).toArray(CompletableFuture[]::new);
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
   * Removes the entries with these event ids from the document's outbox, and waits for it: a
   * document's outbox, read after its entries were published, no longer holds them, so publishing
   * it again sends only what is new. A removal that fails is logged: the relay publishes those
   * entries again once past its grace, which consumers tolerate.
   */
  void remove(String collection, Object documentId, List<String> eventIds) {
    if (eventIds.isEmpty()) {
      return;
    }
    // The driver directly: the id is matched exactly as stored, never converted.
    Bson document = Filters.eq("_id", documentId);
    Bson pull = Updates.pull(FIELD, Filters.in("eventId", eventIds));
    if (removals == null) {
      mongo.getCollection(collection).updateOne(document, pull);
      return;
    }
    try {
      removals.update(document, pull, collection);
    } catch (RuntimeException e) {
      log.warn(
          "published outbox entries of {}/{} not removed: {}",
          collection,
          documentId,
          e.toString());
    }
  }
}
