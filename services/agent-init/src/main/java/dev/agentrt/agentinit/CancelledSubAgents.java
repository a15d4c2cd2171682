package dev.agentrt.agentinit;

import dev.agentrt.store.PendingToolCalls;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentStatus;
import java.time.Instant;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

/**
 * Stops the sub-agent of a cancelled task, found by its task: {@code active | waiting_for_user →
 * cancelled} (a conditional update, so a sub-agent that ended otherwise keeps its status) and its
 * tool calls no tool-runner started fail. Safe to repeat, and to run beside the orchestrator's
 * cancellation, which makes the same writes.
 */
@Component
class CancelledSubAgents {

  private final MongoTemplate mongo;

  CancelledSubAgents(MongoTemplate mongo) {
    this.mongo = mongo;
  }

  void stop(String taskId, Instant now) {
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
      PendingToolCalls.fail(mongo, stopped.id(), "cancelled", now);
    }
  }
}
