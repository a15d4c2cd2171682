package dev.agentrt.finalizer;

import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.LaterUpdates;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.LeasedWork;
import dev.agentrt.store.Leases;
import dev.agentrt.store.Task;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * same write ({@link #offer}, a {@link Leases#takeOrInsert}), then the answer is written on a
 * thread of its own and the pending answer removed later, with the process's other later writes
 * ({@link #answered}). The service's {@link dev.agentrt.store.LeaseSweeper} renews the holds while
 * this instance lives, then {@link #sweep} takes up the answers nobody holds: those of a finalizer
 * that died (its hold expired), let go when it stopped, or whose writing failed. An answer written
 * twice (a hold lost to a long pause) is stored once: {@link FinalAnswers#write} derives its id
 * from the event and returns an answer already stored.
 */
class PendingAnswers implements LeasedWork, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PendingAnswers.class);

  /** Pending answers one sweep takes up at most; the next sweep takes the rest. */
  static final int SWEEP_BATCH = 100;

  private final MongoTemplate mongo;
  private final FinalAnswers answers;
  private final BiPredicate<TaskOutcome, @Nullable Task> deliveredElsewhere;
  private final Consumer<ChatMessage> publish;
  private final ExecutorService writers;
  private final Leases holds;
  private final LaterUpdates later;

  /**
   * @param deliveredElsewhere delivers the outcome of a child task to its caller ({@link
   *     DelegationResults#deliver}), saying whether it was one; given the task as stored (null if
   *     it is not)
   * @param publish publishes a written answer's outbox
   * @param writers runs each answer on a thread of its own
   * @param later the process's writes made later ({@link #answered}'s removals)
   */
  PendingAnswers(
      MongoTemplate mongo,
      FinalAnswers answers,
      BiPredicate<TaskOutcome, @Nullable Task> deliveredElsewhere,
      Consumer<ChatMessage> publish,
      ExecutorService writers,
      LeaseProperties leases,
      LaterUpdates later) {
    this.mongo = mongo;
    this.answers = answers;
    this.deliveredElsewhere = deliveredElsewhere;
    this.publish = publish;
    this.writers = writers;
    this.holds =
        new Leases(mongo, PendingAnswer.class, PendingAnswer.LEASE, leases.duration(), null);
    this.later = later;
  }

  /**
   * Records that the outcome awaits its answer and writes it on a thread of its own, unless another
   * finalizer holds it already (a redelivered event): one write, then back to the caller. The
   * outcome of a child task is no answer for the chat: it goes at once to the call that asked for
   * it ({@link DelegationResults}, a few writes, no model). The task is read once, here, for both.
   */
  void offer(TaskOutcome outcome) {
    Task task = mongo.findById(outcome.taskId(), Task.class);
    if (deliveredElsewhere.test(outcome, task)) {
      return;
    }
    String id = FinalAnswers.idOf(outcome);
    if (holds.takeOrInsert(id, recording(outcome))) {
      holds.run(id, writers, () -> write(outcome, task));
    }
  }

  @Override
  public Leases leases() {
    return holds;
  }

  /** Takes up the answers nobody holds. */
  @Override
  public void sweep() {
    unheld().forEach(this::takeUp);
  }

  /** Answers nobody holds: their holder died, or let go when it stopped. */
  List<PendingAnswer> unheld() {
    return mongo.find(Query.query(holds.expired()).limit(SWEEP_BATCH), PendingAnswer.class);
  }

  /** Writes the pending answer on a thread of its own, unless someone took it meanwhile. */
  void takeUp(PendingAnswer pending) {
    if (holds.take(pending.id(), new Criteria(), new Update())) {
      log.info(
          "taking up the answer to task {}: {}",
          pending.taskId(),
          pending.lease().holder() == null
              ? "its finalizer let go of it"
              : "the hold of "
                  + pending.lease().holder()
                  + " ended at "
                  + pending.lease().leaseUntil());
      holds.run(pending.id(), writers, () -> write(pending.outcome(), null));
    }
  }

  /** The outcome's fields, written only when the upsert inserts the pending answer. */
  private static Update recording(TaskOutcome outcome) {
    Update update =
        new Update()
            .setOnInsert("eventId", outcome.eventId())
            .setOnInsert("taskId", outcome.taskId())
            .setOnInsert("chatId", outcome.chatId());
    return switch (outcome) {
      case TaskOutcome.Succeeded s -> update.setOnInsert("result", s.result());
      case TaskOutcome.Failed f -> update.setOnInsert("error", f.error());
    };
  }

  /** Writes the outcome's answer, from its task as read before (null: read it now). */
  private void write(TaskOutcome outcome, @Nullable Task task) {
    String id = FinalAnswers.idOf(outcome);
    try {
      publish.accept(task == null ? answers.write(outcome) : answers.write(outcome, task));
      answered(id, outcome.taskId());
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        return; // stopping (close() lets go of it), or the hold was lost
      }
      // Its hold is left to expire, then the sweep takes it up again: the lease is the backoff.
      holds.abandon(id);
      log.warn(
          "the answer to task {} failed; it is taken up again when its hold expires: {}",
          outcome.taskId(),
          e.toString());
    }
  }

  /**
   * The answer is written and published: the hold ends, and the pending answer is removed by a
   * delete that matches only while this instance holds it. Made later, with the process's other
   * such writes, and not waited for ({@link LaterUpdates}): nothing waits for it, and one lost (the
   * process died first, or the write failed) leaves the hold to expire, after which the sweep takes
   * the answer up again, finds it stored, asks no model and only publishes what its outbox still
   * holds. Until it is made, a redelivered event finds the answer held and leaves it.
   */
  private void answered(String id, String taskId) {
    later.queue(
        new BulkWrites.Delete(holds.done(id).getQueryObject(), Collections.PENDING_ANSWERS),
        failure ->
            log.warn(
                "the pending answer to task {} was not removed; its hold expires and the sweep"
                    + " finds the answer stored: {}",
                taskId,
                failure.toString()));
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
    holds.releaseAll();
  }
}
