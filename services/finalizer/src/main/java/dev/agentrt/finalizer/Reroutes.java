package dev.agentrt.finalizer;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskFailed;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.Collections;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.stereotype.Component;

/**
 * A task the orchestrator started that failed goes once more, to the fallback agent of agents.yml
 * ({@code routing.fallbackAgent}): a new task with the same instruction, {@code routing.fallback:
 * true}, whose answer is the chat's instead of the failure's. A fallback task that fails ends the
 * run as {@code routing_exhausted}, and its answer says so.
 *
 * <p>Only a fault is re-routed: a model or provider that kept failing, an answer that broke its
 * schema, an agent nobody declared. A run stopped by one of its own limits ({@link
 * TaskFailed#stoppedByLimit}: steps, tokens, deadline, repeats) is not: those limits are the
 * person's or the agent's, and another agent's run would spend past them; the answer says which
 * limit stopped it, as without a fallback.
 *
 * <p>Why the finalizer: it sees every task's outcome, and it is where a failure would become the
 * chat's answer; re-routing is answering the failure with another try instead. Child tasks (a
 * {@code message_agent} call started them) and plan nodes never come here: their outcome goes to
 * their caller or their plan first ({@link DelegationResults}, {@link PlanProgress}), which handle
 * failures themselves — a re-route would answer a call or a node twice. A cancelled task is no
 * failure to retry.
 *
 * <p>Idempotent: the new task's id derives from the failed task's ({@link Task#rerouteId}), so a
 * redelivered outcome, the missing-answer sweep or two finalizers insert it once and only publish
 * what its outbox still holds; the run events are keyed by it too. A task fails once (a failed task
 * is never woken again), so it is re-routed at most once.
 */
@Component
class Reroutes {

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final Optional<String> fallbackAgent;
  private final Outbox outbox;
  private final EventCodec codec;
  private final RunLedger ledger;
  private final Clock clock = Clock.tickMillis(ZoneOffset.UTC); // as precise as MongoDB

  Reroutes(
      MongoTemplate mongo,
      BulkWrites writes,
      AgentCatalog agents,
      Outbox outbox,
      EventCodec codec,
      RunLedger ledger) {
    this.mongo = mongo;
    this.writes = writes;
    this.fallbackAgent = agents.fallbackAgent();
    this.outbox = outbox;
    this.codec = codec;
    this.ledger = ledger;
  }

  /**
   * Re-routes the task of a failed outcome to the fallback agent, if it is due; records a fallback
   * task's failure as {@code routing_exhausted}.
   *
   * @return whether the task was re-routed (now or before): its answer is then the new task's
   */
  boolean reroute(TaskOutcome outcome) {
    if (!(outcome instanceof TaskOutcome.Failed failed) || fallbackAgent.isEmpty()) {
      return false;
    }
    Task task = mongo.findById(outcome.taskId(), Task.class);
    if (task == null || !faultOfTopLevelTask(task)) {
      return false;
    }
    if (isFallback(task)) {
      ledger.append(
          task.chatId(),
          RunEvent.ROUTING_EXHAUSTED + "/" + task.id(),
          RunEvent.ROUTING_EXHAUSTED,
          task.id(),
          task.subAgentId(),
          task.agent(),
          RunLedger.data(
              "reason", task.failureReason(), "error", RunLedger.excerpt(failed.error())));
      return false;
    }
    if (task.agent().equals(fallbackAgent.get())) {
      return false; // chosen for it already: there is nowhere else to send it
    }
    start(task, fallbackAgent.get(), failed.error());
    return true;
  }

  /**
   * A task the orchestrator started that failed by a fault, not by one of its limits: what may be
   * re-routed. Child tasks are their caller's; a cancelled task did not fail.
   */
  private static boolean faultOfTopLevelTask(Task task) {
    return task.status() == TaskStatus.failed
        && task.delegation() == null
        && !TaskFailed.stoppedByLimit(task.failureReason());
  }

  /** A fallback task: the decision's confidence was too low, or it re-routes a failed task. */
  static boolean isFallback(Task task) {
    return task.routing() != null && task.routing().fallback();
  }

  /**
   * The outcome the chat's answer is written from: for a fallback task that failed by a fault, an
   * error that says routing is exhausted; otherwise the outcome itself.
   */
  static TaskOutcome told(Task task, TaskOutcome outcome) {
    if (!(outcome instanceof TaskOutcome.Failed failed)
        || !faultOfTopLevelTask(task)
        || !isFallback(task)) {
      return outcome;
    }
    return new TaskOutcome.Failed(
        failed.eventId(),
        failed.taskId(),
        failed.chatId(),
        RunEvent.ROUTING_EXHAUSTED
            + ": the "
            + task.agent()
            + " was the last agent to try ("
            + task.routing().reason()
            + "), and it failed too: "
            + failed.error());
  }

  private void start(Task failed, String agent, String error) {
    String id = Task.rerouteId(failed.id());
    Instant now = clock.instant();
    Task.Routing routing =
        new Task.Routing(
            failed.routing() == null ? 0 : failed.routing().confidence(),
            "the " + failed.agent() + " failed: " + RunLedger.excerpt(error),
            true);
    Task task =
        writes
            .insertOrFind(
                Task.created(
                    id,
                    failed.chatId(),
                    agent,
                    failed.instruction(),
                    failed.model(),
                    null,
                    routing,
                    null, // the chat's limits: not read here
                    now,
                    codec))
            .document();
    ledger.append(
        failed.chatId(),
        RunEvent.REROUTE + "/" + id,
        RunEvent.REROUTE,
        id,
        null,
        agent,
        RunLedger.data(
            "agent",
            agent,
            "task",
            failed.instruction(),
            "from",
            failed.agent(),
            "failedTask",
            failed.id(),
            "reason",
            routing.reason()));
    outbox.publishOrLeaveToRelay(Collections.TASKS, task.id(), task.outbox());
  }
}
