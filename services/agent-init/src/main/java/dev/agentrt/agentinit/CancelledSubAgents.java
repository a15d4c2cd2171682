package dev.agentrt.agentinit;

import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentCancellation;
import java.time.Instant;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.stereotype.Component;

/**
 * Stops the sub-agent of a cancelled task, found by its task: {@code active | waiting_for_user →
 * cancelled} (a conditional update, so a sub-agent that ended otherwise keeps its status) and its
 * tool calls no tool-runner started fail. Safe to repeat, and to run beside the orchestrator's
 * cancellation, which makes the same writes ({@link SubAgentCancellation}).
 */
@Component
class CancelledSubAgents {

  private final MongoTemplate mongo;
  private final RunLedger ledger;

  CancelledSubAgents(MongoTemplate mongo, RunLedger ledger) {
    this.mongo = mongo;
    this.ledger = ledger;
  }

  void stop(String taskId, Instant now) {
    SubAgentCancellation.cancelSubAgentOf(mongo, ledger, taskId, now);
  }
}
