package dev.agentrt.finalizer;

import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.LeasedWork;
import dev.agentrt.store.Leases;
import dev.agentrt.store.Plan;
import dev.agentrt.store.PlanStatus;
import dev.agentrt.store.Plans;
import dev.agentrt.store.Task;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Moves plans on as their nodes' tasks end, and writes each ended plan's one answer in the chat.
 *
 * <p>Why the finalizer: it already consumes every task's outcome and writes the chat's answers. A
 * plan's node is a task whose outcome is not the chat's answer but a step of its plan, as a child
 * task's outcome is its caller's tool result ({@link DelegationResults}); and a plan's end is one
 * answer, written as any task's is ({@link FinalAnswers}), held as any answer is. No other service
 * needs to know plans beyond the orchestrator, which creates them and starts their first nodes.
 *
 * <p>Moving a plan on is a few conditional writes and no model ({@link Plans#advance}), done on the
 * consumer's thread. Its answer may take a model call: it is held with a lease on the plan ({@code
 * answering}) and written on a thread of its own, like {@link PendingAnswers}. The sweep after
 * every renewal moves on the running plans nothing moved for {@code grace} (an event lost, a
 * finalizer killed between two writes) and answers the ended plans nobody answers.
 */
class PlanProgress implements LeasedWork {

  private static final Logger log = LoggerFactory.getLogger(PlanProgress.class);

  /** Plans one sweep looks at at most, of each kind; the next sweep takes the rest. */
  static final int SWEEP_BATCH = 100;

  private final MongoTemplate mongo;
  private final Plans plans;
  private final FinalAnswers answers;
  private final Consumer<ChatMessage> publish;
  private final ExecutorService writers;
  private final Duration grace;
  private final Leases holds;
  private final Clock clock = Clock.systemUTC();

  /**
   * @param publish publishes a written answer's outbox
   * @param writers runs each answer on a thread of its own
   * @param grace how long a running plan may go unmoved before the sweep moves it on
   */
  PlanProgress(
      MongoTemplate mongo,
      Plans plans,
      FinalAnswers answers,
      Consumer<ChatMessage> publish,
      ExecutorService writers,
      Duration grace,
      LeaseProperties leases) {
    this.mongo = mongo;
    this.plans = plans;
    this.answers = answers;
    this.publish = publish;
    this.writers = writers;
    this.grace = grace;
    this.holds = new Leases(mongo, Plan.class, Plan.ANSWERING, leases.duration(), null);
  }

  /**
   * Moves on the plan whose node the task is, if it is one: the plan that names it, looked up
   * unless the task, as the caller read it, says it is no plan's node ({@link Task#planNode()}).
   *
   * @param task the outcome's task; null when it is not stored
   * @return whether the task is a plan's node (its outcome is then no answer for the chat)
   */
  boolean advance(TaskOutcome outcome, @Nullable Task task) {
    if (task != null && Boolean.FALSE.equals(task.planNode())) {
      return false;
    }
    return plans
        .ofTask(outcome.taskId())
        .map(
            plan -> {
              moveOn(plan.id());
              return true;
            })
        .orElse(false);
  }

  private void moveOn(String planId) {
    plans.advance(planId).filter(PlanProgress::awaitsAnswer).ifPresent(p -> offerAnswer(p.id()));
  }

  private static boolean awaitsAnswer(Plan plan) {
    return plan.status() != PlanStatus.running && plan.answerId() == null;
  }

  /** Writes the ended plan's answer on a thread of its own, unless someone writes it already. */
  private void offerAnswer(String planId) {
    if (holds.take(planId, unanswered(), new Update())) {
      holds.run(planId, writers, () -> answer(planId));
    }
  }

  private static Criteria unanswered() {
    return Criteria.where("status").ne(PlanStatus.running).and("answerId").is(null);
  }

  private void answer(String planId) {
    try {
      Plan plan = plans.find(planId).orElseThrow();
      ChatMessage answer =
          answers.write(PlanBrief.of(plan, taskId -> mongo.findById(taskId, Task.class)));
      publish.accept(answer);
      mongo.updateFirst(
          holds.done(planId),
          new Update().set("answerId", answer.id()).unset(Plan.ANSWERING),
          Plan.class);
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        return; // stopping, or the hold was lost
      }
      holds.abandon(planId); // the sweep takes it up again when its hold expires
      log.warn(
          "the answer to plan {} failed; it is taken up again when its hold expires: {}",
          planId,
          e.toString());
    }
  }

  @Override
  public Leases leases() {
    return holds;
  }

  /** Moves on the running plans nothing moved lately, and answers the ended ones nobody answers. */
  @Override
  public void sweep() {
    for (String planId : plans.runningSince(clock.instant().minus(grace), SWEEP_BATCH)) {
      moveOn(planId);
    }
    Query unheld =
        Query.query(new Criteria().andOperator(unanswered(), holds.free())).limit(SWEEP_BATCH);
    unheld.fields().include("_id");
    List<String> ended =
        mongo.find(unheld, Document.class, Collections.PLANS).stream()
            .map(d -> d.getString("_id"))
            .toList();
    ended.forEach(this::offerAnswer);
  }
}
