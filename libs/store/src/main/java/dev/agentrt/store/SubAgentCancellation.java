package dev.agentrt.store;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * The sub-agent's half of cancelling a task, written once for whoever cancels (the orchestrator at
 * the person's request, agent-init finishing a cancellation that died half-way or racing a start).
 */
public final class SubAgentCancellation {

  private SubAgentCancellation() {}

  /**
   * Cancels the task's sub-agent if it still runs ({@code active} or {@code waiting_for_user}),
   * found by its task rather than by the task's {@code subAgentId}, so a sub-agent made by a start
   * that has not linked it yet is cancelled too; the calls no tool-runner started fail (those
   * awaiting approval rejected, each with its {@code approval_decided}). Its turn's hold is then no
   * longer renewed, and its worker is interrupted ({@link Leases}).
   *
   * @return the sub-agent as it was, or null if none was running
   */
  public static @Nullable SubAgent cancelSubAgentOf(
      MongoTemplate mongo, RunLedger ledger, String taskId, Instant now) {
    SubAgent stopped =
        mongo.findAndModify(
            Query.query(
                Criteria.where("taskId")
                    .is(taskId)
                    .and("status")
                    .in(SubAgentStatus.active, SubAgentStatus.waiting_for_user)),
            new Update().set("status", SubAgentStatus.cancelled).set("updatedAt", now),
            SubAgent.class);
    if (stopped != null) {
      PendingToolCalls.fail(mongo, ledger, stopped.id(), "cancelled", now);
    }
    return stopped;
  }
}
