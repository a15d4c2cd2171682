package dev.agentrt.platform.outbox;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Republishes what a crash left in outboxes: entries older than the grace period (so it does not
 * race the writer that is about to publish them). Safe with any number of copies running: at worst
 * an event is published twice, which consumers tolerate.
 */
public class OutboxRelay {

  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
  private static final int BATCH = 100;

  private final Outbox outbox;
  private final MongoTemplate mongo;
  private final List<String> collections;
  private final Duration grace;
  private final Clock clock;

  public OutboxRelay(
      Outbox outbox, MongoTemplate mongo, List<String> collections, Duration grace, Clock clock) {
    this.outbox = outbox;
    this.mongo = mongo;
    this.collections = List.copyOf(collections);
    this.grace = grace;
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

  /** Publishes the stale entries of one collection; returns how many documents it handled. */
  public int relay(String collection) {
    Query stale =
        Query.query(Criteria.where(Outbox.FIELD + ".occurredAt").lt(clock.instant().minus(grace)))
            .limit(BATCH);
    stale.fields().include(Outbox.FIELD);
    List<Document> documents = mongo.find(stale, Document.class, collection);
    for (Document document : documents) {
      List<OutboxEntry> entries =
          document.getList(Outbox.FIELD, Document.class).stream()
              .map(d -> mongo.getConverter().read(OutboxEntry.class, d))
              .toList();
      log.info("relaying {} event(s) of {}/{}", entries.size(), collection, document.get("_id"));
      outbox.publish(collection, document.get("_id"), entries);
    }
    return documents.size();
  }
}
