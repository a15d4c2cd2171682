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
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Removes published entries from their documents' outboxes off the publisher's path, many documents
 * in one write ({@link GroupCommit}, one bulk update per collection).
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

  /** Queues the removal of these entries from the document's outbox. */
  void remove(String collection, Object documentId, List<String> eventIds) {
    removals.submit(new Removal(collection, documentId, List.copyOf(eventIds)));
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
