package dev.agentrt.platform;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoBulkWriteException;
import com.mongodb.bulk.BulkWriteError;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.DeleteOneModel;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.InsertOneModel;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.convert.QueryMapper;
import org.springframework.data.mongodb.core.convert.UpdateMapper;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.UpdateDefinition;

/**
 * Writes of one document each, inserts, updates and deletes, from many callers, written together
 * ({@link GroupCommit}): what was queued while the last write was in flight goes out as one
 * unordered bulk write per collection. For the writes whose caller needs nothing back but that they
 * were made (a message stored, a sum counted, a hold ended, published outbox entries removed, a
 * finished piece of work's document removed), and the inserts of documents written once, whose
 * caller goes on with the one stored ({@link #insertOrFind}): at low load each is written at once,
 * under load the round trips per write fall as the load rises.
 *
 * <p>Each write is its own: an update whose document is missing changes nothing, as {@code
 * updateOne} would, and a delete whose document is missing deletes nothing, as {@code deleteOne}
 * would; an insert whose key is taken fails with a {@link DuplicateKeyException}, as {@code
 * MongoTemplate.insert} would; any other failure (its write error, or the command's) fails only its
 * caller's future with why. The others of its batch are written. A caller's writes are made in the
 * order it waits for them; two callers' writes, in either order.
 *
 * <p>A conditional update ({@link #updateIfMatches}) learns whether its condition held, as a {@code
 * findAndModify} would tell, without one round trip of its own: it also stamps its document with a
 * token of its own ({@link #WRITTEN_BY}). When every update of a bulk write matched, all of them
 * did, and when none did, none; otherwise one {@code find} of the conditional ones' documents tells
 * by their tokens which. Two conditional updates of one document never share a bulk write, so a
 * token read back is the last one written.
 */
public final class BulkWrites implements AutoCloseable {

  /** The most updates one bulk write carries. */
  public static final int BATCH = 500;

  /** How long {@link #update} and {@link #insert} wait for their write. */
  public static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** The field a conditional update stamps its document with: a token of its own. */
  static final String WRITTEN_BY = "writtenBy";

  /**
   * A write; for a conditional update also its document's id and its token ({@link #WRITTEN_BY}).
   */
  private record Write(
      String collection, WriteModel<Document> model, @Nullable Object id, @Nullable String token) {

    Write(String collection, WriteModel<Document> model) {
      this(collection, model, null, null);
    }

    boolean conditional() {
      return token != null;
    }
  }

  /** What a write came to: why it failed (null: it was made), and whether its update matched. */
  private record Written(@Nullable RuntimeException failure, boolean matched) {
    static final Written MATCHED = new Written(null, true);
    static final Written UNMATCHED = new Written(null, false);
  }

  private final MongoTemplate mongo;
  private final QueryMapper queries;
  private final UpdateMapper updates;
  private final GroupCommit<Write, Written> writes;

  public BulkWrites(MongoTemplate mongo) {
    this(mongo, true);
  }

  /**
   * Writes whose writer waits for {@link #start} when {@code start} is false (tests queue first).
   */
  public BulkWrites(MongoTemplate mongo, boolean start) {
    this.mongo = mongo;
    this.queries = new QueryMapper(mongo.getConverter());
    this.updates = new UpdateMapper(mongo.getConverter());
    this.writes = new GroupCommit<>("bulk-writes", BATCH, this::write, start);
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
    return queue(new Write(collection, new UpdateOneModel<>(filter, update)));
  }

  /**
   * Updates the document with this id in {@code collection} if it also matches {@code condition},
   * with the writes queued meanwhile, and says whether it did: as a conditional {@code
   * findAndModify} tells, for a caller that needs nothing else back. For a condition that no later
   * write makes true again (a move out of a status, a claim of what is free): between this update
   * and the read that tells updates apart (see the class), another that matched the same document
   * would leave this one told it did not.
   *
   * @return whether the document was there and matched the condition, so the update was made
   * @throws RuntimeException why that is not known: its write error, the command's failure, or no
   *     answer within {@link #TIMEOUT} (the update may have been made)
   */
  public boolean updateIfMatches(Object id, Bson condition, Bson update, String collection) {
    return await(queueIfMatches(id, condition, update, collection));
  }

  /**
   * {@link #updateIfMatches(Object, Bson, Bson, String)} with Spring Data's query and update,
   * mapped as {@link #queue(Query, UpdateDefinition, String)} maps them.
   */
  public boolean updateIfMatches(
      Object id, Query condition, UpdateDefinition update, String collection) {
    return await(queueIfMatches(id, condition, update, collection));
  }

  /** {@link #updateIfMatches(Object, Query, UpdateDefinition, String)}, queued without waiting. */
  public CompletableFuture<Boolean> queueIfMatches(
      Object id, Query condition, UpdateDefinition update, String collection) {
    return queueIfMatches(
        id,
        queries.getMappedObject(condition.getQueryObject(), Optional.empty()),
        updates.getMappedObject(update.getUpdateObject(), Optional.empty()),
        collection);
  }

  /** Queues the update of {@link #updateIfMatches}; the future says whether it matched. */
  public CompletableFuture<Boolean> queueIfMatches(
      Object id, Bson condition, Bson update, String collection) {
    String token = new ObjectId().toHexString();
    Write write =
        new Write(
            collection,
            new UpdateOneModel<>(
                Filters.and(Filters.eq("_id", id), condition),
                Updates.combine(update, Updates.set(WRITTEN_BY, token))),
            id,
            token);
    return writes
        .submit(write)
        .thenCompose(written -> outcome(written).thenApply(made -> written.matched()));
  }

  /**
   * Inserts the entity into its type's collection, mapped as {@code MongoTemplate.insert} maps it,
   * together with the writes queued meanwhile; returns once it is written. The entity must carry
   * its id.
   *
   * @throws DuplicateKeyException a document with its id (or another unique key) is there
   * @throws RuntimeException why else it was not written, as {@link #update} does
   */
  public void insert(Object entity) {
    await(queueInsert(entity));
  }

  /** What {@link #insertOrFind} came to: the document stored, and whether this call inserted it. */
  public record Stored<T>(T document, boolean inserted) {}

  /**
   * Inserts the entity as {@link #insert} does, unless a document with its id is stored; then reads
   * that one. For the documents written once under an id derived from what caused them: a
   * redelivered event, or a second copy of a service, finds what the first wrote and goes on with
   * it. An insert that succeeds costs no read.
   *
   * @return the entity itself when this call inserted it, else the stored document
   * @throws DuplicateKeyException the key taken is not its id: no document with its id is stored
   * @throws RuntimeException why else it was not written, as {@link #insert} does
   */
  public <T> Stored<T> insertOrFind(T entity) {
    Document document = documentOf(entity);
    try {
      await(queue(insertOf(entity.getClass(), document)));
      return new Stored<>(entity, true);
    } catch (DuplicateKeyException taken) {
      @SuppressWarnings("unchecked") // an entity's class is the class of what it is read as
      Class<T> type = (Class<T>) entity.getClass();
      T stored = mongo.findById(document.get("_id"), type);
      if (stored == null) {
        throw taken;
      }
      return new Stored<>(stored, false);
    }
  }

  /** Queues the insert of {@link #insert}; the future fails as {@link #insert} throws. */
  public CompletableFuture<Void> queueInsert(Object entity) {
    return queue(insertOf(entity));
  }

  /**
   * Queues the inserts of the entities to go out in one batch, as {@link #queueInsert} queues one:
   * a future for each, in order.
   */
  public List<CompletableFuture<Void>> queueInserts(List<?> entities) {
    return queueAll(entities.stream().map(this::insertOf).toList());
  }

  /** A write of {@link #queuePlain}, with the driver's filter (and update): nothing mapped. */
  public sealed interface Plain permits Update, Delete {
    String collection();
  }

  /**
   * An update of the first document of the collection the filter matches; one whose document is
   * missing changes nothing, as {@code updateOne}.
   */
  public record Update(Bson filter, Bson update, String collection) implements Plain {}

  /**
   * A delete of the first document of the collection the filter matches; one whose document is
   * missing deletes nothing and is no failure, as {@code deleteOne}.
   */
  public record Delete(Bson filter, String collection) implements Plain {}

  /**
   * Queues the updates and deletes to go out in one batch, as {@link #queue(Bson, Bson, String)}
   * queues one update: a future for each, in order.
   */
  public List<CompletableFuture<Void>> queuePlain(List<? extends Plain> writes) {
    return queueAll(writes.stream().map(BulkWrites::writeOf).toList());
  }

  private static Write writeOf(Plain write) {
    return new Write(
        write.collection(),
        switch (write) {
          case Update u -> new UpdateOneModel<>(u.filter(), u.update());
          case Delete d -> new DeleteOneModel<>(d.filter());
        });
  }

  private List<CompletableFuture<Void>> queueAll(List<Write> batch) {
    if (batch.isEmpty()) {
      return List.of();
    }
    CompletableFuture<List<Written>> written = writes.submitAll(batch);
    List<CompletableFuture<Void>> each = new ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      int index = i;
      each.add(written.thenCompose(outcomes -> outcome(outcomes.get(index))));
    }
    return each;
  }

  private Write insertOf(Object entity) {
    return insertOf(entity.getClass(), documentOf(entity));
  }

  private Write insertOf(Class<?> type, Document document) {
    return new Write(mongo.getCollectionName(type), new InsertOneModel<>(document));
  }

  /** The entity mapped as {@code MongoTemplate.insert} maps it; it must carry its id. */
  private Document documentOf(Object entity) {
    Document document = new Document();
    mongo.getConverter().write(entity, document);
    if (!document.containsKey("_id")) {
      throw new IllegalArgumentException("an entity to insert carries its id: " + entity);
    }
    return document;
  }

  private CompletableFuture<Void> queue(Write write) {
    return writes.submit(write).thenCompose(BulkWrites::outcome);
  }

  private static CompletableFuture<Void> outcome(Written written) {
    return written.failure() == null
        ? CompletableFuture.completedFuture(null)
        : CompletableFuture.failedFuture(written.failure());
  }

  /**
   * Waits for a queued write as {@link #update} and {@link #insert} do: returns once it is written,
   * else throws why it was not.
   */
  public static <T> T await(CompletableFuture<T> written) {
    try {
      return written.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a write", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("a write was not made within " + TIMEOUT, e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException failure
          ? failure
          : new IllegalStateException(e.getCause());
    }
  }

  /** One unordered bulk write per collection; what each write came to, in the batch's order. */
  private List<Written> write(List<Write> batch) {
    Written[] outcomes = new Written[batch.size()];
    Map<String, List<Integer>> byCollection = new LinkedHashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      byCollection.computeIfAbsent(batch.get(i).collection(), c -> new ArrayList<>()).add(i);
    }
    byCollection.forEach((collection, indexes) -> write(collection, batch, indexes, outcomes));
    return List.of(outcomes);
  }

  /**
   * The writes of one collection ({@code indexes} into the batch), as one bulk write; a second
   * conditional update of a document goes out in the next one, after the first is known.
   */
  private void write(
      String collection, List<Write> batch, List<Integer> indexes, Written[] outcomes) {
    List<Integer> now = new ArrayList<>(indexes.size());
    List<Integer> later = new ArrayList<>();
    Set<Object> conditioned = new HashSet<>();
    for (int i : indexes) {
      Write write = batch.get(i);
      (write.conditional() && !conditioned.add(write.id()) ? later : now).add(i);
    }
    List<WriteModel<Document>> models = new ArrayList<>(now.size());
    for (int i : now) {
      models.add(batch.get(i).model());
    }
    long matched;
    try {
      matched =
          mongo
              .getCollection(collection)
              .bulkWrite(models, new BulkWriteOptions().ordered(false))
              .getMatchedCount();
    } catch (MongoBulkWriteException e) {
      for (BulkWriteError error : e.getWriteErrors()) {
        outcomes[now.get(error.getIndex())] = new Written(failure(collection, error), false);
      }
      matched = e.getWriteResult().getMatchedCount();
    } catch (RuntimeException e) {
      now.forEach(i -> outcomes[i] = new Written(e, false));
      matched = 0;
    }
    resolveConditions(collection, batch, now, outcomes, matched);
    if (!later.isEmpty()) {
      write(collection, batch, later, outcomes);
    }
  }

  /**
   * Says of each write made whether it matched: all did when the bulk write matched as many
   * documents as it held updates, none when it matched none; else the conditional ones are told
   * apart by their tokens, read back with one find. Only updates are counted: the driver counts
   * what deletes deleted apart ({@code getDeletedCount}), never in the matched count.
   */
  private void resolveConditions(
      String collection,
      List<Write> batch,
      List<Integer> written,
      Written[] outcomes,
      long matched) {
    List<Integer> made = written.stream().filter(i -> outcomes[i] == null).toList();
    long updates =
        made.stream().filter(i -> batch.get(i).model() instanceof UpdateOneModel).count();
    List<Integer> unknown = made.stream().filter(i -> batch.get(i).conditional()).toList();
    made.forEach(i -> outcomes[i] = Written.MATCHED); // an unconditional one: nobody asks
    if (matched == updates || unknown.isEmpty()) {
      return;
    }
    if (matched == 0) { // a lone update that missed, say
      unknown.forEach(i -> outcomes[i] = Written.UNMATCHED);
      return;
    }
    Map<Object, String> tokens = new HashMap<>();
    try {
      mongo
          .getCollection(collection)
          .find(Filters.in("_id", unknown.stream().map(i -> batch.get(i).id()).toList()))
          .projection(Projections.include(WRITTEN_BY))
          .forEach(found -> tokens.put(found.get("_id"), found.getString(WRITTEN_BY)));
      for (int i : unknown) {
        Write write = batch.get(i);
        outcomes[i] =
            write.token().equals(tokens.get(write.id())) ? Written.MATCHED : Written.UNMATCHED;
      }
    } catch (RuntimeException e) {
      unknown.forEach(i -> outcomes[i] = new Written(e, false));
    }
  }

  private static RuntimeException failure(String collection, BulkWriteError error) {
    if (ErrorCategory.fromErrorCode(error.getCode()) == ErrorCategory.DUPLICATE_KEY) {
      return new DuplicateKeyException("write to " + collection + ": " + error.getMessage());
    }
    return new IllegalStateException("write to " + collection + " failed: " + error.getMessage());
  }

  /** Writes what is still queued and stops. */
  @Override
  public void close() {
    writes.close();
  }
}
