package dev.agentrt.toolrunner.calls;

import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.toolrunner.tools.ToolOutcome;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.FindAndModifyOptions;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

/**
 * The state moves of a tool call, each one conditional update, so that of any number of workers
 * exactly one wins each move.
 *
 * <p>{@code leaseUntil} says until when a worker is responsible for a call. It is set when the call
 * is claimed and stays set after the result is recorded, until the tool message is appended: a
 * finished call that still has a lease has an answer that may not have reached the agent yet.
 */
@Component
class ToolCalls {

  /** Tool calls the agent loop answers itself; this service never claims them. */
  static final List<String> HANDLED_ELSEWHERE = List.of(ToolCatalog.ASK_USER);

  private static final List<ToolCallStatus> FINISHED =
      List.of(ToolCallStatus.success, ToolCallStatus.failed);

  private final MongoTemplate mongo;
  private final ToolCallProperties properties;
  private final Clock clock = Clock.systemUTC();

  ToolCalls(MongoTemplate mongo, ToolCallProperties properties) {
    this.mongo = mongo;
    this.properties = properties;
  }

  /** {@code pending → running} for this call, if nobody claimed it yet. */
  Optional<ToolCall> claim(String toolCallId) {
    return claimWhere(ours().and("_id").is(toolCallId).and("status").is(ToolCallStatus.pending));
  }

  /**
   * A pending call older than {@code unclaimedAfter}: its event was lost, never handled, or handled
   * before the call was recorded (the agent loop records a turn's calls after its answer).
   */
  Optional<ToolCall> claimUnclaimed() {
    Instant now = clock.instant();
    return claimWhere(
        ours()
            .and("status")
            .is(ToolCallStatus.pending)
            .and("createdAt")
            .lt(now.minus(properties.unclaimedAfter())));
  }

  /** A running call whose lease expired (its worker died), now held by the caller. */
  Optional<ToolCall> takeBackExpired() {
    return claimWhere(
        ours().and("status").is(ToolCallStatus.running).and("leaseUntil").lt(clock.instant()));
  }

  /** A finished call whose tool message may be missing (lease expired), now held by the caller. */
  Optional<ToolCall> takeBackUnanswered() {
    Instant now = clock.instant();
    return Optional.ofNullable(
        mongo.findAndModify(
            Query.query(ours().and("status").in(FINISHED).and("leaseUntil").lt(now)),
            new Update().set("leaseUntil", now.plus(properties.lease())),
            FindAndModifyOptions.options().returnNew(true),
            ToolCall.class));
  }

  /**
   * Stores the outcome if the call is still running; a late duplicate finds it finished and changes
   * nothing. The lease stays until the tool message is appended ({@link #answered}).
   *
   * @return the call as stored with this outcome; empty when another outcome was stored first
   */
  Optional<ToolCall> record(String toolCallId, ToolOutcome outcome, long latencyMs) {
    Update update = new Update().set("latencyMs", latencyMs).set("updatedAt", clock.instant());
    switch (outcome) {
      case ToolOutcome.Success success ->
          update.set("status", ToolCallStatus.success).set("result", success.json());
      case ToolOutcome.Failure failure ->
          update.set("status", ToolCallStatus.failed).set("error", failure.json());
    }
    return Optional.ofNullable(
        mongo.findAndModify(
            Query.query(
                Criteria.where("_id").is(toolCallId).and("status").is(ToolCallStatus.running)),
            update,
            FindAndModifyOptions.options().returnNew(true),
            ToolCall.class));
  }

  /**
   * The name of the agent whose sub-agent made the call: the one the call names, else (a call
   * stored before calls named it) its sub-agent's; null if that sub-agent is gone.
   */
  @Nullable String agentOf(ToolCall call) {
    if (call.agent() != null) {
      return call.agent();
    }
    SubAgent subAgent = mongo.findById(call.subAgentId(), SubAgent.class);
    return subAgent == null ? null : subAgent.agent();
  }

  Optional<ToolCall> find(String toolCallId) {
    return Optional.ofNullable(mongo.findById(toolCallId, ToolCall.class));
  }

  /** The tool message is stored: nobody needs to look after this call any more. */
  void answered(String toolCallId) {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(toolCallId).and("status").in(FINISHED)),
        new Update().unset("leaseUntil"),
        ToolCall.class);
  }

  static boolean finished(ToolCall call) {
    return FINISHED.contains(call.status());
  }

  private Optional<ToolCall> claimWhere(Criteria criteria) {
    Instant now = clock.instant();
    return Optional.ofNullable(
        mongo.findAndModify(
            Query.query(criteria),
            new Update()
                .set("status", ToolCallStatus.running)
                .set("leaseUntil", now.plus(properties.lease()))
                .set("updatedAt", now),
            FindAndModifyOptions.options().returnNew(true),
            ToolCall.class));
  }

  private static Criteria ours() {
    return Criteria.where("name").nin(HANDLED_ELSEWHERE);
  }
}
