package dev.agentrt.store;

import java.time.Instant;
import org.springframework.data.mongodb.core.FindAndModifyOptions;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Tool calls of a run that ended before they started: {@code pending → failed}, by the same kind of
 * conditional update a tool-runner claims a call with, so a call either started before the run
 * ended (it finishes and is recorded, but nothing acts on it) or never starts. A call still
 * awaiting a person's approval is rejected the same way, {@code awaiting_approval → failed}, as a
 * decision ({@link ApprovalDecision}: by {@code cancellation} when the task was cancelled, else
 * {@code run_failed}; the reason is the error type): stored on the call and recorded once as its
 * {@code approval_decided}, like a person's.
 */
public final class PendingToolCalls {

  private PendingToolCalls() {}

  /**
   * Fails the sub-agent's calls that no tool-runner has started.
   *
   * @param errorType why, as the tool message's {@code error_type} would say it ({@code cancelled}
   *     for a cancelled task)
   * @return how many it failed
   */
  public static long fail(
      MongoTemplate mongo, RunLedger ledger, String subAgentId, String errorType, Instant now) {
    long failed = rejectAwaiting(mongo, ledger, subAgentId, errorType, now);
    return failed
        + mongo
            .updateMulti(
                Query.query(
                    Criteria.where("subAgentId")
                        .is(subAgentId)
                        .and("status")
                        .is(ToolCallStatus.pending)),
                new Update()
                    .set("status", ToolCallStatus.failed)
                    .set(
                        "error",
                        "{\"error_type\":\""
                            + errorType
                            + "\",\"message\":\"not run: the run ended before it started\"}")
                    .set("updatedAt", now),
                ToolCall.class)
            .getModifiedCount();
  }

  /** Each call awaiting approval, rejected by its own conditional update, then recorded. */
  private static long rejectAwaiting(
      MongoTemplate mongo, RunLedger ledger, String subAgentId, String errorType, Instant now) {
    ApprovalDecision decision =
        new ApprovalDecision(
            false,
            "cancelled".equals(errorType)
                ? ApprovalDecision.CANCELLATION
                : ApprovalDecision.RUN_FAILED,
            now,
            errorType,
            null);
    long rejected = 0;
    for (ToolCall awaiting :
        mongo.find(
            Query.query(
                Criteria.where("subAgentId")
                    .is(subAgentId)
                    .and("status")
                    .is(ToolCallStatus.awaiting_approval)),
            ToolCall.class)) {
      ToolCall stored =
          mongo.findAndModify(
              Query.query(
                  Criteria.where("_id")
                      .is(awaiting.id())
                      .and("status")
                      .is(ToolCallStatus.awaiting_approval)),
              new Update()
                  .set("status", ToolCallStatus.failed)
                  .set(
                      "error",
                      "{\"error_type\":\"rejected\",\"message\":\""
                          + errorType
                          + ": the run ended before a person decided\"}")
                  .set(ToolCall.DECISION, decision.document())
                  .set("updatedAt", now),
              FindAndModifyOptions.options().returnNew(true),
              ToolCall.class);
      if (stored != null) { // else decided meanwhile, by a person or another run's end
        decision.record(ledger, stored);
        rejected++;
      }
    }
    return rejected;
  }
}
