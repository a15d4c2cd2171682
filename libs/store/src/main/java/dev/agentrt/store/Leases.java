package dev.agentrt.store;

import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.GroupCommit;
import io.opentelemetry.context.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.data.mongodb.core.FindAndModifyOptions;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Holds one kind of slow work (a chat's decisions, an answer, a model turn, a tool call) with a
 * lease, the one primitive behind DESIGN invariant 4.
 *
 * <p>A document's work is held through a field of it, {@code {holder, leaseUntil}} ({@link Lease};
 * say {@code turn} on a sub-agent), taken by a conditional write that matches only while nobody
 * holds it or its lease has passed. While this instance works, {@link LeaseSweeper} renews every
 * hold it has in one write (the heartbeat), so a lease can be short and a dead worker's work is
 * taken up by another within the lease and one sweep. A hold that was not renewed (cancelled, or
 * taken by another instance after a long pause) is lost: its worker is interrupted, as {@link
 * #interrupt} does for a cancellation. {@link #done} ends a hold when the work is finished, {@link
 * #release} lets go of one so anyone takes it at once.
 *
 * <p>Writes that end or release a hold match only while this instance holds it, so a worker that
 * lost its hold can never end someone else's.
 */
public final class Leases {

  private static final Logger log = LoggerFactory.getLogger(Leases.class);

  private final MongoTemplate mongo;
  private final @Nullable BulkWrites writes;
  private final Class<?> type;
  private final String collection;
  private final String holderField;
  private final String untilField;
  private final Duration duration;
  private final @Nullable Criteria wanted;
  private final String instance = Ids.fresh();
  private final Clock clock = Clock.tickMillis(ZoneOffset.UTC); // as precise as MongoDB

  /** Reads back the documents {@link #queueTakeAndGet} took; with {@link #writes} only. */
  private final @Nullable GroupCommit<String, @Nullable Document> taken;

  /** What this instance holds, by document id: the worker's thread once it runs. */
  private final Map<String, Hold> held = new ConcurrentHashMap<>();

  /**
   * @param type the documents holding the work
   * @param field the field of the lease, {@code {holder, leaseUntil}}
   * @param duration how long a hold lasts unless renewed
   * @param wanted what a document must still match for its work to go on (its hold is renewed only
   *     then; say {@code status: active}); null for always
   */
  public Leases(
      MongoTemplate mongo,
      Class<?> type,
      String field,
      Duration duration,
      @Nullable Criteria wanted) {
    this(mongo, null, type, field, duration, wanted);
  }

  /**
   * {@link #Leases(MongoTemplate, Class, String, Duration, Criteria)} whose {@link #take}s go out
   * with the process's other writes ({@link BulkWrites#updateIfMatches}): under load many takes,
   * and the other updates of the documents' collection, share one round trip.
   */
  public Leases(
      MongoTemplate mongo,
      @Nullable BulkWrites writes,
      Class<?> type,
      String field,
      Duration duration,
      @Nullable Criteria wanted) {
    this.mongo = mongo;
    this.writes = writes;
    this.type = type;
    this.collection = mongo.getCollectionName(type);
    this.holderField = field + ".holder";
    this.untilField = field + ".leaseUntil";
    this.duration = duration;
    this.wanted = wanted;
    this.taken =
        writes == null ? null : new GroupCommit<>("leases-taken-" + collection, 500, this::read);
  }

  /** How long a hold lasts unless renewed. */
  public Duration duration() {
    return duration;
  }

  /** This instance, as the holder it writes. */
  public String holder() {
    return instance;
  }

  /** Nobody holds the work: never taken, let go of, or its lease has passed. */
  public Criteria free() {
    return new Criteria()
        .orOperator(Criteria.where(untilField).is(null), Criteria.where(untilField).lt(now()));
  }

  /** The lease has passed (or was let go of): work a sweep takes up. */
  public Criteria expired() {
    return Criteria.where(untilField).lt(now());
  }

  /**
   * Takes the document's work if nobody holds it and it matches {@code condition}, setting {@code
   * also} in the same write.
   *
   * @return whether this instance holds it now; false too when it held it already
   */
  public boolean take(String id, Criteria condition, Update also) {
    Query takable = takable(id, condition);
    return takeWith(id, () -> updateOne(id, takable, holding(also)) ? true : null).isPresent();
  }

  /**
   * Takes the document's work for its next piece as the worker of a hold that {@link #done} forgot
   * ends the one before: in one write that matches only while this instance still holds it and the
   * document matches {@code condition}, renews the lease and sets {@code also}. With the process's
   * other writes ({@link BulkWrites#updateIfMatches}) when this has them.
   *
   * @return whether this instance holds it now, for the next piece; when false the hold stands (or
   *     was lost), and the worker ends it with {@link #done}'s query
   */
  public boolean takeNext(String id, Criteria condition, Update also) {
    Query next = Query.query(heldHere(List.of(id)).andOperator(condition));
    return takeWith(id, () -> updateOne(id, next, holding(also)) ? true : null).isPresent();
  }

  /** {@link #take} that returns the document as taken. */
  public <T> Optional<T> takeAndGet(String id, Criteria condition, Update also, Class<T> as) {
    return takeWith(id, () -> takeOne(takable(id, condition), also))
        .map(taken -> mongo.getConverter().read(as, taken));
  }

  /**
   * {@link #takeAndGet} without waiting for it, for leases whose takes go out with the process's
   * other writes: the take is a conditional update in their bulk write ({@link
   * BulkWrites#queueIfMatches}), and the document, once taken, is read with the others taken
   * meanwhile, one {@code find} for all. Under load, where each take would be a {@code
   * findAndModify} of its own, many share two round trips.
   *
   * @return the document as taken; empty when it was not taken (as {@link #takeAndGet}); failed
   *     with why the take is not known to have been made
   */
  public <T> CompletableFuture<Optional<T>> queueTakeAndGet(
      String id, Criteria condition, Update also, Class<T> as) {
    GroupCommit<String, @Nullable Document> reads = taken;
    if (reads == null) {
      throw new IllegalStateException("takes queue with the process's writes only");
    }
    return queueTake(id, condition, also, () -> reads.submit(id))
        .thenApply(document -> document.map(d -> mongo.getConverter().read(as, d)));
  }

  /**
   * {@link #queueTakeAndGet} for a caller that knows the document already: the take alone, without
   * the read after it.
   *
   * @return whether this instance holds it now (as {@link #take}); failed with why the take is not
   *     known to have been made
   */
  public CompletableFuture<Boolean> queueTake(String id, Criteria condition, Update also) {
    return queueTake(
            id, condition, also, () -> CompletableFuture.completedFuture(new Document("_id", id)))
        .thenApply(Optional::isPresent);
  }

  /**
   * Queues the take in the process's bulk write, then, once made, {@code then} (the document as
   * taken, null when it is gone); the hold is this instance's only when both succeed.
   */
  private CompletableFuture<Optional<Document>> queueTake(
      String id,
      Criteria condition,
      Update also,
      Supplier<CompletableFuture<@Nullable Document>> then) {
    if (writes == null) {
      throw new IllegalStateException("takes queue with the process's writes only");
    }
    Hold hold = new Hold();
    if (held.putIfAbsent(id, hold) != null) {
      return CompletableFuture.completedFuture(Optional.empty()); // held here already
    }
    return writes
        .queueIfMatches(id, takable(id, condition), holding(also), collection)
        .thenCompose(made -> made ? then.get() : CompletableFuture.completedFuture(null))
        .handle(
            (document, failure) -> {
              if (failure == null && document != null) {
                hold.taken = true;
                return Optional.of(document);
              }
              held.remove(id, hold);
              if (failure != null) {
                throw failure instanceof CompletionException c
                    ? c
                    : new CompletionException(failure);
              }
              return Optional.empty();
            });
  }

  /** The documents taken by {@link #queueTakeAndGet}, by id, in one read; null for one gone. */
  private List<@Nullable Document> read(List<String> ids) {
    Map<Object, Document> found = new HashMap<>();
    mongo
        .getCollection(collection)
        .find(new Document("_id", new Document("$in", ids)))
        .forEach(document -> found.put(document.get("_id"), document));
    return ids.stream().map(found::get).toList();
  }

  /**
   * Takes the first document matching {@code which} whose work nobody holds (a sweep's take), with
   * {@code also} in the same write.
   */
  public <T> Optional<T> takeAny(Criteria which, Update also, Class<T> as) {
    Document taken = takeOne(Query.query(new Criteria().andOperator(which, free())), also);
    if (taken == null) {
      return Optional.empty();
    }
    Hold hold = new Hold();
    hold.taken = true;
    held.put(String.valueOf(taken.get("_id")), hold);
    return Optional.of(mongo.getConverter().read(as, taken));
  }

  /**
   * The take's write, by collection name rather than entity class, as every write here is: mapped
   * against the class, a lease field's path ({@code turn.leaseUntil}) and a field the record does
   * not declare cost Spring Data thrown and caught exceptions on every write.
   */
  private @Nullable Document takeOne(Query query, Update also) {
    return mongo.findAndModify(
        query,
        holding(also),
        FindAndModifyOptions.options().returnNew(true),
        Document.class,
        collection);
  }

  /**
   * Takes the work of a document that may not exist yet: an upsert that records {@code onInsert}
   * when it inserts. A live hold makes it a duplicate key, hence false.
   */
  public boolean takeOrInsert(String id, Update onInsert) {
    return takeWith(
            id,
            () -> {
              try {
                mongo.upsert(
                    Query.query(Criteria.where("_id").is(id).and(untilField).lt(now())),
                    holding(onInsert),
                    collection);
                return true;
              } catch (DuplicateKeyException heldElsewhere) {
                return null;
              }
            })
        .isPresent();
  }

  /**
   * Runs the work of a hold on the executor, as its worker: interrupted if the hold is lost or
   * {@link #interrupt}ed. Lets go of the hold if the executor refuses (it is stopping). The work
   * runs in the caller's context (its trace: the event that asked for the work, say).
   */
  public void run(String id, Executor executor, Runnable work) {
    Hold hold = held.get(id);
    if (hold == null) {
      return;
    }
    // The trace goes with the work: the OpenTelemetry context, which an outbox entry the work
    // makes records and a span it starts takes as its parent. Not the caller's observation: an
    // observation's scope opened on two threads at once loses the first thread's context.
    Runnable inContext = Context.current().wrap(work);
    try {
      executor.execute(
          () -> {
            hold.attach(Thread.currentThread());
            try {
              inContext.run();
            } finally {
              hold.detach();
              Thread.interrupted(); // an interruption that came as the work ended stays here
            }
          });
    } catch (RejectedExecutionException stopping) {
      release(id);
    }
  }

  /** Interrupts the worker of a hold of this instance (a cancellation); false if none runs. */
  public boolean interrupt(String id) {
    Hold hold = held.get(id);
    return hold != null && hold.interrupt();
  }

  /** Whether this instance holds the document's work. */
  public boolean holds(String id) {
    return held.containsKey(id);
  }

  /** The ids of the documents whose work this instance holds. */
  public Set<String> heldIds() {
    return Set.copyOf(held.keySet());
  }

  /**
   * The heartbeat: extends every hold of this instance whose document is still wanted, in one
   * write. A hold that could not be extended is lost: its worker is interrupted.
   *
   * @return the ids of the holds lost
   */
  public Set<String> renew() {
    // Only holds whose take was written: one being taken now is not in the document yet, and
    // counting it lost would forget a hold the take then gets, leaving its work to wait for the
    // lease to pass (a step stalled for the lease's 30 s, about once in a thousand takes).
    List<String> ids =
        held.entrySet().stream().filter(e -> e.getValue().taken).map(Map.Entry::getKey).toList();
    if (ids.isEmpty()) {
      return Set.of();
    }
    long renewed =
        mongo
            .updateMulti(
                Query.query(stillWanted(ids)),
                new Update().set(untilField, leaseUntil()),
                collection)
            .getMatchedCount();
    if (renewed == ids.size()) {
      return Set.of();
    }
    Query stillHeld = Query.query(stillWanted(ids));
    stillHeld.fields().include("_id");
    Set<String> kept = new HashSet<>();
    mongo
        .find(stillHeld, Document.class, collection)
        .forEach(d -> kept.add(String.valueOf(d.get("_id"))));
    Set<String> lost = new HashSet<>();
    for (String id : ids) {
      Hold hold = held.get(id);
      if (!kept.contains(id) && hold != null && held.remove(id, hold)) {
        lost.add(id);
        if (hold.interrupt()) {
          log.info("lost the hold on {} {}; its worker is interrupted", type.getSimpleName(), id);
        }
      }
    }
    return lost;
  }

  /**
   * Ends a hold whose work is finished: forgets it here (no renewal or interruption reaches the
   * worker any more) and returns the query matching the document only while this instance holds it,
   * for the write that ends the work (which unsets the lease field or removes the document).
   */
  public Query done(String id) {
    held.remove(id);
    return Query.query(heldHere(List.of(id)));
  }

  /**
   * Ends a hold that {@link #done} forgot, with {@code update}, if the document also matches {@code
   * unchanged} (it is as the worker left it), and says whether it did: the end for a worker that
   * needs the document back only when something changed meanwhile. The write goes out with the
   * process's others ({@link BulkWrites#updateIfMatches}) when this has them. When it says false
   * the hold stands (or was lost), and the worker ends it with {@link #done}'s query.
   */
  public boolean endIfUnchanged(String id, Criteria unchanged, Update update) {
    return updateOne(id, Query.query(heldHere(List.of(id)).andOperator(unchanged)), update);
  }

  /**
   * A conditional update of one document, with the process's other writes when this has them;
   * whether it matched.
   */
  private boolean updateOne(String id, Query query, Update update) {
    return writes == null
        ? mongo.updateFirst(query, update, collection).getMatchedCount() > 0
        : writes.updateIfMatches(id, query, update, collection);
  }

  /**
   * Stops renewing a hold without a write: its lease expires and a sweep takes the work up again
   * then. The backoff of work that failed.
   */
  public void abandon(String id) {
    held.remove(id);
  }

  /** Lets go of a hold, so anyone takes the work at once; quietly, as its lease expires anyway. */
  public void release(String id) {
    release(List.of(id));
  }

  /** Lets go of every hold, as a stopping instance does once its workers stopped. */
  public void releaseAll() {
    if (!held.isEmpty()) {
      release(List.copyOf(held.keySet()));
    }
  }

  private void release(List<String> ids) {
    ids.forEach(held::remove);
    try {
      mongo.updateMulti(
          Query.query(heldHere(ids)),
          new Update().unset(holderField).set(untilField, Instant.EPOCH),
          collection);
    } catch (RuntimeException e) {
      log.warn(
          "could not let go of {} {}; their leases expire: {}",
          type.getSimpleName(),
          ids,
          e.toString());
    }
  }

  /**
   * Records the hold here, then makes the write that takes it; forgets it again if the write took
   * nothing (a null result).
   */
  private <R> Optional<R> takeWith(String id, Supplier<@Nullable R> write) {
    Hold hold = new Hold();
    if (held.putIfAbsent(id, hold) != null) {
      return Optional.empty(); // held here already
    }
    boolean taken = false;
    try {
      R result = write.get();
      taken = result != null;
      hold.taken = taken;
      return taken ? Optional.of(result) : Optional.empty();
    } finally {
      if (!taken) {
        held.remove(id, hold);
      }
    }
  }

  private Query takable(String id, Criteria condition) {
    return Query.query(new Criteria().andOperator(Criteria.where("_id").is(id), condition, free()));
  }

  private Update holding(Update also) {
    return also.set(holderField, instance).set(untilField, leaseUntil());
  }

  private Criteria heldHere(List<String> ids) {
    return Criteria.where("_id").in(ids).and(holderField).is(instance);
  }

  private Criteria stillWanted(List<String> ids) {
    return wanted == null ? heldHere(ids) : heldHere(ids).andOperator(wanted);
  }

  private Instant now() {
    return clock.instant();
  }

  private Instant leaseUntil() {
    return now().plus(duration);
  }

  /** A hold of this instance and the thread working on it, once one does. */
  private static final class Hold {
    private @Nullable Thread worker;

    /** Its take is written: from now on it is renewed, and lost when a renewal misses it. */
    volatile boolean taken;

    synchronized void attach(Thread thread) {
      worker = thread;
    }

    synchronized void detach() {
      worker = null;
    }

    synchronized boolean interrupt() {
      if (worker == null) {
        return false;
      }
      worker.interrupt();
      return true;
    }
  }
}
