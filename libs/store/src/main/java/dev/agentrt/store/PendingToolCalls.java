package dev.agentrt.store;

import java.time.Instant;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Tool calls of a run that ended before they started: {@code pending → failed}, by the same kind of
 * conditional update a tool-runner claims a call with, so a call either started before the run
 * ended (it finishes and is recorded, but nothing acts on it) or never starts. A call still
 * awaiting a person's approval is rejected the same way: {@code awaiting_approval → failed}.
 */
public final class PendingToolCalls {

  private PendingToolCalls() {}

  /**
   * Fails the sub-agent's calls that no tool-runner has started.
   *
   * @param errorType why, as the tool message's {@code error_type} would say it
   * @return how many it failed
   */
  public static long fail(MongoTemplate mongo, String subAgentId, String errorType, Instant now) {
    long rejected =
        mongo
            .updateMulti(
                Query.query(
                    Criteria.where("subAgentId")
                        .is(subAgentId)
                        .and("status")
                        .is(ToolCallStatus.awaiting_approval)),
                new Update()
                    .set("status", ToolCallStatus.failed)
                    .set(
                        "error",
                        "{\"error_type\":\"rejected\",\"message\":\""
                            + errorType
                            + ": the run ended before a person decided\"}")
                    .set("updatedAt", now),
                ToolCall.class)
            .getModifiedCount();
    return rejected
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
}
