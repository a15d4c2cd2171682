package dev.agentrt.platform;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.bulk.BulkWriteError;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.UpdateOneModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.convert.QueryMapper;
import org.springframework.data.mongodb.core.convert.UpdateMapper;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.UpdateDefinition;

/**
 * Updates of one document each, from many callers, written together ({@link GroupCommit}): what was
 * queued while the last write was in flight goes out as one unordered bulk write per collection.
 * For the writes whose caller needs nothing back but that they were made (a sum counted, a hold
 * ended, published outbox entries removed): at low load each is written at once, under load the
 * round trips per update fall.
 *
 * <p>Each update is its own: one whose document is missing changes nothing, as {@code updateOne}
 * would, and one that fails (its write error, or the command) fails only its caller's future with
 * why; the others of its batch are written.
 */
public final class BulkUpdates implements AutoCloseable {

  /** The most updates one bulk write carries. */
  static final int BATCH = 500;

  /** How long {@link #update} waits for its write. */
  public static final Duration TIMEOUT = Duration.ofSeconds(10);

  private record Update(String collection, Bson filter, Bson update) {}

  private final MongoTemplate mongo;
  private final QueryMapper queries;
  private final UpdateMapper updates;
  private final GroupCommit<Update, @Nullable RuntimeException> writes;

  public BulkUpdates(MongoTemplate mongo) {
    this(mongo, true);
  }

  /**
   * Updates whose writer waits for {@link #start} when {@code start} is false (tests queue first).
   */
  public BulkUpdates(MongoTemplate mongo, boolean start) {
    this.mongo = mongo;
    this.queries = new QueryMapper(mongo.getConverter());
    this.updates = new UpdateMapper(mongo.getConverter());
    this.writes = new GroupCommit<>("bulk-updates", BATCH, this::write, start);
  }

  /** Starts a writer created unstarted. */
  public void start() {
    writes.start();
  }

  /**
   * Updates the first document of {@code collection} the query matches, as {@code
   * MongoTemplate.updateFirst(query, update, collection)} would (mapped the same way), together
   * with the updates queued meanwhile; returns once it is written.
   *
   * @throws RuntimeException why it was not: its write error, the command's failure, or no answer
   *     within {@link #TIMEOUT}
   */
  public void update(Query query, UpdateDefinition update, String collection) {
    await(queue(query, update, collection));
  }

  /** {@link #update(Query, UpdateDefinition, String)} with the driver's filter and update. */
  public void update(Bson filter, Bson update, String collection) {
    await(queue(filter, update, collection));
  }

  /** Queues the update; the future completes once it is written, or fails with why it was not. */
  public CompletableFuture<Void> queue(Query query, UpdateDefinition update, String collection) {
    return queue(
        // No entity: field names as they are, as updateFirst by collection name maps them.
        queries.getMappedObject(query.getQueryObject(), Optional.empty()),
        updates.getMappedObject(update.getUpdateObject(), Optional.empty()),
        collection);
  }

  /** Queues the update with the driver's filter and update (nothing mapped). */
  public CompletableFuture<Void> queue(Bson filter, Bson update, String collection) {
    return writes
        .submit(new Update(collection, filter, update))
        .thenCompose(
            failure ->
                failure == null
                    ? CompletableFuture.completedFuture(null)
                    : CompletableFuture.failedFuture(failure));
  }

  private static void await(CompletableFuture<Void> written) {
    try {
      written.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for an update", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("an update was not written within " + TIMEOUT, e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException failure
          ? failure
          : new IllegalStateException(e.getCause());
    }
  }

  /** One unordered bulk write per collection; what each update came to, in the batch's order. */
  private List<@Nullable RuntimeException> write(List<Update> batch) {
    RuntimeException[] outcomes = new RuntimeException[batch.size()];
    Map<String, List<Integer>> byCollection = new LinkedHashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      byCollection.computeIfAbsent(batch.get(i).collection(), c -> new ArrayList<>()).add(i);
    }
    byCollection.forEach(
        (collection, indexes) -> {
          List<UpdateOneModel<Document>> models = new ArrayList<>(indexes.size());
          for (int i : indexes) {
            models.add(new UpdateOneModel<>(batch.get(i).filter(), batch.get(i).update()));
          }
          try {
            mongo
                .getCollection(collection)
                .bulkWrite(models, new BulkWriteOptions().ordered(false));
          } catch (MongoBulkWriteException e) {
            for (BulkWriteError error : e.getWriteErrors()) {
              outcomes[indexes.get(error.getIndex())] =
                  new IllegalStateException(
                      "update of " + collection + " failed: " + error.getMessage());
            }
          } catch (RuntimeException e) {
            indexes.forEach(i -> outcomes[i] = e);
          }
        });
    return Arrays.asList(outcomes);
  }

  /** Writes what is still queued and stops. */
  @Override
  public void close() {
    writes.close();
  }
}
