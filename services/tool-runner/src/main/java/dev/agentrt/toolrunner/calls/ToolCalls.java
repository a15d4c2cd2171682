package dev.agentrt.toolrunner.calls;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.events.ToolCallRequested;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.LaterUpdates;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Exists;
import dev.agentrt.store.Lease;
import dev.agentrt.store.Leases;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.toolrunner.tools.ToolOutcome;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

/**
 * The state moves of a tool call, each one conditional update, so that of any number of workers
 * exactly one wins each move.
 *
 * <p>A runner holds the calls it looks after with {@link Leases} on the call's {@code lease}: taken
 * with the claim ({@code pending → running} in the same write), renewed while the tool runs, kept
 * after the outcome is recorded and unset soon after the tool message is appended ({@link
 * #answered}). A finished call that still has a lease has an answer that may not have reached the
 * agent yet.
 */
@Component
class ToolCalls {

  private static final Logger log = LoggerFactory.getLogger(ToolCalls.class);

  /** Tool calls the agent loop answers itself; this service never claims them. */
  static final List<String> HANDLED_ELSEWHERE = List.of(ToolCatalog.ASK_USER);

  private static final List<ToolCallStatus> FINISHED =
      List.of(ToolCallStatus.success, ToolCallStatus.failed);

  private final MongoTemplate mongo;
  private final BulkWrites updates;
  private final ToolCallProperties properties;
  private final Leases leases;
  private final LaterUpdates later;
  private final Clock clock = Clock.systemUTC();

  ToolCalls(
      MongoTemplate mongo,
      BulkWrites updates,
      ToolCallProperties properties,
      Leases toolCallLeases,
      LaterUpdates later) {
    this.mongo = mongo;
    this.updates = updates;
    this.properties = properties;
    this.leases = toolCallLeases;
    this.later = later;
  }

  /** The holds of this runner's calls. */
  Leases leases() {
    return leases;
  }

  /** {@code pending → running} for this call, held here, if nobody claimed it yet. */
  Optional<ToolCall> claim(String toolCallId) {
    return leases.takeAndGet(toolCallId, claimable(), running(), ToolCall.class);
  }

  /**
   * {@link #claim} without waiting, with the claims and the calls' other writes queued meanwhile.
   * The call is the one the event carries, as its document was recorded ({@link Leases#queueTake}):
   * the claim reads nothing back. An event that does not carry it (published before events did) has
   * the call read back after the claim ({@link Leases#queueTakeAndGet}).
   */
  CompletableFuture<Optional<ToolCall>> queueClaim(ToolCallRequested requested) {
    String id = requested.toolCallId();
    ToolCallRequested.Call call = requested.call();
    if (call == null) {
      return leases.queueTakeAndGet(id, claimable(), running(), ToolCall.class);
    }
    ToolCall claimed =
        new ToolCall(
            id,
            requested.subAgentId(),
            requested.taskId(),
            requested.chatId(),
            call.agent(),
            call.stepId(),
            call.modelCallId(),
            requested.name(),
            call.arguments(),
            ToolCallStatus.running,
            null,
            null,
            null,
            new Lease(
                leases.holder(), clock.instant().plus(leases.duration())), // as the claim sets
            requested.occurredAt(),
            requested.occurredAt(),
            List.of(),
            call.resultAfter());
    return leases
        .queueTake(id, claimable(), running())
        .thenApply(made -> made ? Optional.of(claimed) : Optional.empty());
  }

  private static Criteria claimable() {
    return ours().and("status").is(ToolCallStatus.pending);
  }

  /**
   * A pending call older than {@code unclaimedAfter}, now running and held here: its event was
   * lost, never handled, or handled before the call was recorded (the agent loop records a turn's
   * calls after its answer).
   */
  Optional<ToolCall> claimUnclaimed() {
    return leases.takeAny(
        ours()
            .and("status")
            .is(ToolCallStatus.pending)
            .and("createdAt")
            .lt(clock.instant().minus(properties.unclaimedAfter())),
        running(),
        ToolCall.class);
  }

  /** A running call whose lease expired (its worker died), now held here. */
  Optional<ToolCall> takeBackExpired() {
    return leases.takeAny(
        ours().and("status").is(ToolCallStatus.running),
        new Update().set("updatedAt", clock.instant()),
        ToolCall.class);
  }

  /** A finished call whose tool message may be missing (its lease expired), now held here. */
  Optional<ToolCall> takeBackUnanswered() {
    return leases.takeAny(
        ours().and("status").in(FINISHED).andOperator(leases.expired()),
        new Update(),
        ToolCall.class);
  }

  /**
   * Stores the outcome if the call is still running; a late duplicate finds it finished and changes
   * nothing. The lease stays until the tool message is appended ({@link #answered}). The write goes
   * out with the other calls' writes made at the same time ({@link BulkWrites#updateIfMatches}): it
   * reads nothing back, so the call is returned as the runner holds it with this outcome.
   *
   * @param call the call as this runner took it (running, held here)
   * @return the call as stored with this outcome; empty when another outcome was stored first
   */
  Optional<ToolCall> record(ToolCall call, ToolOutcome outcome, long latencyMs) {
    Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS); // as MongoDB keeps it
    ToolCall recorded =
        switch (outcome) {
          case ToolOutcome.Success success ->
              call.recorded(ToolCallStatus.success, success.json(), null, latencyMs, now);
          case ToolOutcome.Failure failure ->
              call.recorded(ToolCallStatus.failed, null, failure.json(), latencyMs, now);
        };
    Bson outcomeField =
        recorded.status() == ToolCallStatus.success
            ? Updates.set("result", recorded.result())
            : Updates.set("error", recorded.error());
    boolean made =
        updates.updateIfMatches(
            call.id(),
            Filters.eq("status", ToolCallStatus.running.name()),
            Updates.combine(
                Updates.set("status", recorded.status().name()),
                Updates.set("latencyMs", latencyMs),
                Updates.set("updatedAt", now),
                outcomeField),
            Collections.SUB_AGENT_TOOL_CALLS);
    return made ? Optional.of(recorded) : Optional.empty();
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

  /** Whether the call's task was cancelled (its sub-agent says so). */
  boolean taskCancelled(ToolCall call) {
    return Exists.any(
        mongo,
        Query.query(
            Criteria.where("_id").is(call.subAgentId()).and("status").is(SubAgentStatus.cancelled)),
        SubAgent.class);
  }

  /** The ids of the task's calls running here. */
  List<String> runningHere(String taskId) {
    Query query =
        Query.query(
            Criteria.where("taskId")
                .is(taskId)
                .and("status")
                .is(ToolCallStatus.running)
                .and(ToolCall.LEASE + ".holder")
                .is(leases.holder()));
    query.fields().include("_id");
    return mongo.find(query, Document.class, mongo.getCollectionName(ToolCall.class)).stream()
        .map(d -> String.valueOf(d.get("_id")))
        .toList();
  }

  Optional<ToolCall> find(String toolCallId) {
    return Optional.ofNullable(mongo.findById(toolCallId, ToolCall.class));
  }

  /**
   * The tool message is stored and published: the hold ends, nobody needs to look after this call
   * any more. Made later, with the process's other such updates, and not waited for ({@link
   * LaterUpdates}): nothing waits for it, and one lost (the process died first, or the write
   * failed) leaves the hold to expire, after which the sweep answers the call again, which finds
   * the message stored and publishes nothing new.
   */
  void answered(String toolCallId) {
    Bson held =
        Filters.and(
            leases.done(toolCallId).getQueryObject(),
            Filters.in("status", FINISHED.stream().map(ToolCallStatus::name).toList()));
    later.queue(
        new BulkWrites.Update(
            held, Updates.unset(ToolCall.LEASE), Collections.SUB_AGENT_TOOL_CALLS),
        failure ->
            log.warn(
                "the hold on answered tool call {} was not ended; it expires: {}",
                toolCallId,
                failure.toString()));
  }

  static boolean finished(ToolCall call) {
    return FINISHED.contains(call.status());
  }

  private Update running() {
    return new Update().set("status", ToolCallStatus.running).set("updatedAt", clock.instant());
  }

  private static Criteria ours() {
    return Criteria.where("name").nin(HANDLED_ELSEWHERE);
  }
}
