package dev.agentrt.platform.outbox;

import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import dev.agentrt.platform.GroupCommit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Removes published entries from their documents' outboxes, many documents in one write ({@link
 * GroupCommit}, one bulk update per collection): the removals of publishers that finish at the same
 * moment share a round trip.
 *
 * <p>Nothing depends on the removal but {@link OutboxRelay}: an entry whose removal is lost (the
 * write failed, the process died first) is published again once past the relay's grace, which
 * consumers tolerate. {@link #close} writes what is still queued.
 */
public final class OutboxTrimmer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutboxTrimmer.class);

  /** The most documents one bulk update carries. */
  static final int BATCH = 500;

  private record Removal(String collection, Object documentId, List<String> eventIds) {}

  private final MongoTemplate mongo;
  private final GroupCommit<Removal, Void> removals;

  public OutboxTrimmer(MongoTemplate mongo) {
    this(mongo, true);
  }

  /** A trimmer whose writer waits for {@link #start} when {@code start} is false (tests). */
  OutboxTrimmer(MongoTemplate mongo, boolean start) {
    this.mongo = mongo;
    this.removals = new GroupCommit<>("outbox-trimmer", BATCH, this::write, start);
  }

  void start() {
    removals.start();
  }

  /**
   * Removes these entries from the document's outbox, in one write with the removals of other
   * publishers queued meanwhile; returns once it is written (or failed: the relay covers it).
   * Waiting keeps what the outbox promised before: a document's outbox, read after its entries were
   * published, no longer holds them, so publishing it again sends only what is new.
   */
  void remove(String collection, Object documentId, List<String> eventIds) {
    try {
      queue(collection, documentId, eventIds)
          .get(Outbox.SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.warn(
          "published outbox entries of {}/{} not removed: {}",
          collection,
          documentId,
          e.toString());
    }
  }

  /** Queues the removal; the future completes once it is written. */
  CompletableFuture<Void> queue(String collection, Object documentId, List<String> eventIds) {
    return removals.submit(new Removal(collection, documentId, List.copyOf(eventIds)));
  }

  private List<Void> write(List<Removal> batch) {
    Map<String, List<UpdateOneModel<Document>>> byCollection = new LinkedHashMap<>();
    for (Removal removal : batch) {
      // The driver directly: the id is matched exactly as stored, never converted.
      byCollection
          .computeIfAbsent(removal.collection(), c -> new ArrayList<>())
          .add(
              new UpdateOneModel<>(
                  Filters.eq("_id", removal.documentId()),
                  Updates.pull(Outbox.FIELD, Filters.in("eventId", removal.eventIds()))));
    }
    byCollection.forEach(
        (collection, updates) -> {
          try {
            mongo
                .getCollection(collection)
                .bulkWrite(updates, new BulkWriteOptions().ordered(false));
          } catch (RuntimeException e) {
            log.warn(
                "{} published outbox entries of {} not removed; the relay will publish them again: {}",
                updates.size(),
                collection,
                e.toString());
          }
        });
    return Collections.nCopies(batch.size(), null);
  }

  /** Writes what is still queued and stops. */
  @Override
  public void close() {
    removals.close();
  }
}
