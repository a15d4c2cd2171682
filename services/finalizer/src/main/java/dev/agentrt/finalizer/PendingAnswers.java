package dev.agentrt.finalizer;

import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Ids;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Writes the answers of finished tasks, each on its own virtual thread, so a slow final-answer
 * model holds up no other chat's answer and the Kafka consumer moves on at once (DESIGN invariant
 * 4). Answers need no order among them: any number are written side by side.
 *
 * <p>An outcome's event is recorded as a {@link PendingAnswer} and held by this instance in the
 * same write ({@link #offer}), then the answer is written on a thread of its own and the pending
 * answer removed. The holder renews its hold while alive ({@link #renewHolds}); the holds of a
 * finalizer that died expire and the sweep takes their answers up again ({@link #unheld}, {@link
 * #takeUp}). An answer written twice (a hold lost to a long pause) is stored once: {@link
 * FinalAnswers#write} derives its id from the event and returns an answer already stored.
 */
class PendingAnswers implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PendingAnswers.class);

  private final MongoTemplate mongo;
  private final FinalAnswers answers;
  private final Consumer<ChatMessage> publish;
  private final ExecutorService writers;
  private final FinalizerProperties properties;
  private final Clock clock = Clock.tickMillis(ZoneOffset.UTC); // as precise as MongoDB

  /** This finalizer instance, as the holder of the answers it writes. */
  private final String instance = Ids.fresh();

  private final Set<String> held = ConcurrentHashMap.newKeySet();

  /**
   * @param publish publishes a written answer's outbox
   * @param writers runs each answer on a thread of its own
   */
  PendingAnswers(
      MongoTemplate mongo,
      FinalAnswers answers,
      Consumer<ChatMessage> publish,
      ExecutorService writers,
      FinalizerProperties properties) {
    this.mongo = mongo;
    this.answers = answers;
    this.publish = publish;
    this.writers = writers;
    this.properties = properties;
  }

  /**
   * Records that the outcome awaits its answer and writes it on a thread of its own, unless another
   * finalizer holds it already (a redelivered event): one write, then back to the caller.
   */
  void offer(TaskOutcome outcome) {
    if (hold(FinalAnswers.idOf(outcome), outcome)) {
      start(outcome);
    }
  }

  /** Answers nobody holds: their holder died, or let go when it stopped; a sweep takes each up. */
  List<PendingAnswer> unheld() {
    return mongo.find(
        Query.query(Criteria.where(PendingAnswer.LEASE_UNTIL).lt(clock.instant())),
        PendingAnswer.class);
  }

  /** Writes the pending answer on a thread of its own, unless someone took it meanwhile. */
  void takeUp(PendingAnswer pending) {
    if (hold(pending.id(), null)) {
      log.info(
          "taking up the answer to task {}: {}",
          pending.taskId(),
          pending.holder() == null
              ? "its finalizer let go of it"
              : "the hold of " + pending.holder() + " ended at " + pending.leaseUntil());
      start(pending.outcome());
    }
  }

  /** Extends the hold on every answer this instance writes; one write whatever their number. */
  void renewHolds() {
    if (held.isEmpty()) {
      return;
    }
    mongo.updateMulti(
        heldHere(List.copyOf(held)),
        new Update().set(PendingAnswer.LEASE_UNTIL, leaseUntil()),
        PendingAnswer.class);
  }

  /**
   * Takes the pending answer with a conditional write: only if nobody holds it. With an outcome,
   * the same write records it when it is not pending yet (an upsert; a live hold makes it a
   * duplicate key).
   */
  private boolean hold(String id, @Nullable TaskOutcome outcome) {
    if (!held.add(id)) {
      return false; // written here already
    }
    Query free =
        Query.query(
            Criteria.where("_id").is(id).and(PendingAnswer.LEASE_UNTIL).lt(clock.instant()));
    Update take =
        new Update()
            .set(PendingAnswer.HOLDER, instance)
            .set(PendingAnswer.LEASE_UNTIL, leaseUntil());
    boolean taken = false;
    try {
      if (outcome == null) {
        taken = mongo.updateFirst(free, take, PendingAnswer.class).getModifiedCount() == 1;
      } else {
        mongo.upsert(free, recording(outcome, take), PendingAnswer.class);
        taken = true;
      }
    } catch (DuplicateKeyException heldElsewhere) {
      // pending already, and held: by a live finalizer, or by a dead one until its hold expires
    } finally {
      if (!taken) {
        held.remove(id);
      }
    }
    return taken;
  }

  /** The outcome's fields, written only when the upsert inserts the pending answer. */
  private static Update recording(TaskOutcome outcome, Update update) {
    update
        .setOnInsert("eventId", outcome.eventId())
        .setOnInsert("taskId", outcome.taskId())
        .setOnInsert("chatId", outcome.chatId());
    return switch (outcome) {
      case TaskOutcome.Succeeded s -> update.setOnInsert("result", s.result());
      case TaskOutcome.Failed f -> update.setOnInsert("error", f.error());
    };
  }

  private void start(TaskOutcome outcome) {
    try {
      writers.execute(() -> write(outcome));
    } catch (RejectedExecutionException stopping) {
      release(List.of(FinalAnswers.idOf(outcome)));
    }
  }

  private void write(TaskOutcome outcome) {
    String id = FinalAnswers.idOf(outcome);
    try {
      publish.accept(answers.write(outcome));
      mongo.remove(heldHere(List.of(id)), PendingAnswer.class);
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        return; // stopping: close() lets go of it
      }
      // Its hold is left to expire, then the sweep takes it up again: the lease is the backoff.
      log.warn(
          "the answer to task {} failed; it is taken up again when its hold expires: {}",
          outcome.taskId(),
          e.toString());
    }
    held.remove(id);
  }

  private Query heldHere(List<String> ids) {
    return Query.query(Criteria.where("_id").in(ids).and(PendingAnswer.HOLDER).is(instance));
  }

  /** Lets go of the pending answers: anyone's next sweep takes them up. */
  private void release(List<String> ids) {
    try {
      mongo.updateMulti(
          heldHere(ids),
          new Update().unset(PendingAnswer.HOLDER).set(PendingAnswer.LEASE_UNTIL, Instant.EPOCH),
          PendingAnswer.class);
    } catch (RuntimeException e) {
      log.warn("could not let go of answers {}; their holds expire: {}", ids, e.toString());
    }
    ids.forEach(held::remove);
  }

  private Instant leaseUntil() {
    return clock.instant().plus(properties.answerLease());
  }

  /**
   * Stops writing and lets go of the answers held, so that the next finalizer takes them up at its
   * first sweep instead of after their holds expire. An answer cut short is written again: it is
   * stored once whoever writes it.
   */
  @Override
  public void close() throws InterruptedException {
    writers.shutdownNow();
    writers.awaitTermination(5, TimeUnit.SECONDS);
    if (!held.isEmpty()) {
      release(List.copyOf(held));
    }
  }
}
