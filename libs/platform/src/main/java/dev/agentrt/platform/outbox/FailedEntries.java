package dev.agentrt.platform.outbox;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import dev.agentrt.platform.messaging.DeadLetters;
import dev.agentrt.platform.messaging.EventPublisher;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Counts the relay's failed attempts to publish an outbox entry and sets aside an entry that failed
 * {@code max-attempts} times, so that it no longer holds up the entries after it: a dead letter
 * with the reason goes to {@code agentrt.dead-letters} (a replay puts it on its topic once the
 * cause is fixed), the entry is kept in {@value #COLLECTION} with the reason, and it leaves the
 * outbox. Each step is safe to repeat: a relay that dies between them sets the entry aside again.
 */
class FailedEntries {

  /** Where set-aside entries are kept, under their event id. */
  static final String COLLECTION = "outbox_set_aside";

  /** The count of failed attempts on an entry of an outbox. */
  static final String ATTEMPTS = "attempts";

  private static final Logger log = LoggerFactory.getLogger(FailedEntries.class);

  private final MongoTemplate mongo;
  private final EventPublisher publisher;
  private final DeadLetters deadLetters;
  private final int maxAttempts;
  private final Clock clock;

  FailedEntries(
      MongoTemplate mongo,
      EventPublisher publisher,
      DeadLetters deadLetters,
      int maxAttempts,
      Clock clock) {
    this.mongo = mongo;
    this.publisher = publisher;
    this.deadLetters = deadLetters;
    this.maxAttempts = maxAttempts;
    this.clock = clock;
  }

  /**
   * Counts a failed attempt on the entry (one conditional update of its document) and sets it aside
   * once it has failed {@code max-attempts} times.
   */
  void failed(String collection, Object documentId, OutboxEntry entry, Throwable reason) {
    Document counted =
        mongo
            .getCollection(collection)
            .findOneAndUpdate(
                Filters.and(
                    Filters.eq("_id", documentId),
                    Filters.eq(Outbox.FIELD + ".eventId", entry.eventId())),
                Updates.inc(Outbox.FIELD + ".$." + ATTEMPTS, 1),
                new FindOneAndUpdateOptions()
                    .projection(Projections.include(Outbox.FIELD))
                    .returnDocument(ReturnDocument.AFTER));
    if (counted == null) {
      return; // published meanwhile by its writer or another relay
    }
    Document stored =
        counted.getList(Outbox.FIELD, Document.class).stream()
            .filter(e -> entry.eventId().equals(e.getString("eventId")))
            .findFirst()
            .orElseThrow();
    int attempts = stored.getInteger(ATTEMPTS, 0);
    if (attempts < maxAttempts) {
      log.warn(
          "could not publish {} of {}/{} (attempt {} of {}): {}",
          entry.eventId(),
          collection,
          documentId,
          attempts,
          maxAttempts,
          reason.toString());
      return;
    }
    setAside(collection, documentId, stored, entry, attempts, reason);
  }

  /**
   * Dead-letters the entry, keeps it with the reason, then removes it from its outbox. If the dead
   * letter is not acknowledged (the broker is down) the entry stays in the outbox for the next try.
   */
  private void setAside(
      String collection,
      Object documentId,
      Document stored,
      OutboxEntry entry,
      int attempts,
      Throwable reason) {
    String keptIn = COLLECTION + "/" + entry.eventId();
    try {
      deadLetters
          .sendUnpublished(recordOf(entry), reason, keptIn)
          .get(Outbox.SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException | TimeoutException e) {
      log.warn("could not dead-letter {}, it stays in its outbox: {}", keptIn, e.toString());
      return;
    }
    mongo
        .getCollection(COLLECTION)
        .replaceOne(
            Filters.eq("_id", entry.eventId()),
            new Document("_id", entry.eventId())
                .append("collection", collection)
                .append("documentId", documentId)
                .append("entry", stored)
                .append(ATTEMPTS, attempts)
                .append("reason", reason.toString())
                .append("setAsideAt", clock.instant()),
            new ReplaceOptions().upsert(true));
    mongo
        .getCollection(collection)
        .updateOne(
            Filters.eq("_id", documentId),
            Updates.pull(Outbox.FIELD, Filters.eq("eventId", entry.eventId())));
    log.error(
        "set aside {} of {}/{} after {} failed attempts, dead-lettered: {}",
        entry.eventId(),
        collection,
        documentId,
        attempts,
        reason.toString());
  }

  /** The record the entry would have been; a plain one if its type is unknown here. */
  private ProducerRecord<String, byte[]> recordOf(OutboxEntry entry) {
    try {
      return publisher.record(entry);
    } catch (IllegalArgumentException unknownType) {
      return new ProducerRecord<>(
          entry.topic(), entry.key(), entry.payload().getBytes(StandardCharsets.UTF_8));
    }
  }
}
