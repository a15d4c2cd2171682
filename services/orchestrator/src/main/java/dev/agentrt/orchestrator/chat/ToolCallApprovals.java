package dev.agentrt.orchestrator.chat;

import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.ApprovalDecision;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Exists;
import dev.agentrt.store.Leases;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentIds;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.FindAndModifyOptions;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import tools.jackson.databind.json.JsonMapper;

/**
 * A person's decision on a call that awaits approval, stored before anything runs on it: one
 * conditional update moves the call out of {@code awaiting_approval} with the decision ({@code
 * decision: {approved, by, at, reason}}), so of two decisions on one call exactly one is stored and
 * the other finds it decided.
 *
 * <ul>
 *   <li><b>Approved</b>: {@code → pending} with its {@code ToolCallRequested} in the call's outbox
 *       in the same write, then published (a crash leaves it to the relay, or to tool-runner's
 *       sweep of unclaimed calls): the call runs once, as any other.
 *   <li><b>Rejected</b>: {@code → failed} with {@code {"error_type":"rejected","message":reason}},
 *       taken with a hold on the call's {@code lease} in the same write; then the tool message that
 *       wakes the loop, and the hold ends. Should this instance die between the two, the hold
 *       expires and tool-runner's sweeper answers the call from its stored error, without running
 *       it, as it answers any finished call whose answer may be missing.
 * </ul>
 *
 * When no call of the task awaits approval any more, the task goes back to {@code running}. A
 * decision the person gave as a chat message ("approve", "reject: …") records that message's id
 * ({@code decision.messageId}), so the message, redelivered, decides nothing more.
 */
public class ToolCallApprovals {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** What became of a decision. */
  public sealed interface Outcome {
    record Decided(ToolCall call) implements Outcome {}

    /** The call is not in this chat (or does not exist). */
    record NotFound() implements Outcome {}

    /** The call awaits no decision: decided before, or never gated. */
    record NotAwaiting(ToolCallStatus status) implements Outcome {}
  }

  private final MongoTemplate mongo;
  private final SubAgentConversations conversations;
  private final Outbox outbox;
  private final EventCodec codec;
  private final RunLedger ledger;
  private final Leases holds;
  private final Clock clock = Clock.tickMillis(ZoneOffset.UTC); // as precise as MongoDB

  /**
   * @param holds the holds of tool calls (their {@code lease}), as tool-runner takes them
   */
  public ToolCallApprovals(
      MongoTemplate mongo,
      SubAgentConversations conversations,
      Outbox outbox,
      EventCodec codec,
      RunLedger ledger,
      Leases holds) {
    this.mongo = mongo;
    this.conversations = conversations;
    this.outbox = outbox;
    this.codec = codec;
    this.ledger = ledger;
    this.holds = holds;
  }

  /**
   * Decides a call of the chat.
   *
   * @param by who decided: a user's name, or {@link ApprovalDecision#TIMEOUT}
   * @param reason why, for a rejection (the model reads it); null: none given
   */
  public Outcome decide(
      String chatId, String toolCallId, boolean approved, @Nullable String reason, String by) {
    return decide(chatId, toolCallId, approved, reason, by, null);
  }

  /**
   * {@link #decide(String, String, boolean, String, String)} on the person's chat message.
   *
   * @param messageId the person's message that decided, recorded with the decision
   */
  public Outcome decide(
      String chatId,
      String toolCallId,
      boolean approved,
      @Nullable String reason,
      String by,
      @Nullable String messageId) {
    ToolCall call = mongo.findById(toolCallId, ToolCall.class);
    if (call == null || !call.chatId().equals(chatId)) {
      return new Outcome.NotFound();
    }
    Instant now = clock.instant();
    ApprovalDecision decision =
        new ApprovalDecision(approved, by, now, approved ? null : reasonOr(reason), messageId);
    Optional<ToolCall> decided =
        approved ? approve(call, decision, now) : reject(call, decision, now);
    if (decided.isEmpty()) {
      ToolCall current = mongo.findById(toolCallId, ToolCall.class);
      return new Outcome.NotAwaiting(current == null ? call.status() : current.status());
    }
    decision.record(ledger, call);
    if (approved) {
      outbox.publishOrLeaveToRelay(
          Collections.SUB_AGENT_TOOL_CALLS, call.id(), decided.get().outbox());
    } else {
      answer(decided.get(), now);
    }
    resumeTask(call, now);
    return new Outcome.Decided(decided.get());
  }

  /** Rejects every call that has awaited approval since before {@code before}, as timed out. */
  int rejectAwaitingSince(Instant before, int limit) {
    Query old =
        Query.query(
                Criteria.where("status")
                    .is(ToolCallStatus.awaiting_approval)
                    .and("createdAt")
                    .lt(before))
            .limit(limit);
    int rejected = 0;
    for (ToolCall call : mongo.find(old, ToolCall.class)) {
      if (decide(call.chatId(), call.id(), false, "timeout", ApprovalDecision.TIMEOUT)
          instanceof Outcome.Decided) {
        rejected++;
      }
    }
    return rejected;
  }

  /** The chat's call that awaits approval, the latest asked first. */
  public Optional<ToolCall> awaitingIn(String chatId) {
    return Optional.ofNullable(
        mongo.findOne(
            Query.query(
                    Criteria.where("chatId")
                        .is(chatId)
                        .and("status")
                        .is(ToolCallStatus.awaiting_approval))
                .with(Sort.by(Sort.Direction.DESC, "createdAt", "id"))
                .limit(1),
            ToolCall.class));
  }

  /** The call the person's chat message decided, if it decided one. */
  public Optional<ToolCall> decidedBy(String messageId) {
    return Optional.ofNullable(
        mongo.findOne(
            Query.query(Criteria.where(ToolCall.DECISION + ".messageId").is(messageId)),
            ToolCall.class));
  }

  private Optional<ToolCall> approve(ToolCall call, ApprovalDecision decision, Instant now) {
    OutboxEntry requested = OutboxEntry.of(call.requested(now), codec);
    return Optional.ofNullable(
        mongo.findAndModify(
            Query.query(
                Criteria.where("_id")
                    .is(call.id())
                    .and("status")
                    .is(ToolCallStatus.awaiting_approval)),
            new Update()
                .set("status", ToolCallStatus.pending)
                .set(ToolCall.DECISION, decision.document())
                .set("updatedAt", now)
                .push(Outbox.FIELD, requested),
            FindAndModifyOptions.options().returnNew(true),
            ToolCall.class));
  }

  private Optional<ToolCall> reject(ToolCall call, ApprovalDecision decision, Instant now) {
    return holds.takeAndGet(
        call.id(),
        Criteria.where("status").is(ToolCallStatus.awaiting_approval),
        new Update()
            .set("status", ToolCallStatus.failed)
            .set("error", rejection(decision.reason()))
            .set(ToolCall.DECISION, decision.document())
            .set("updatedAt", now),
        ToolCall.class);
  }

  /** The tool message of a rejected call, which wakes the loop; then the hold ends. */
  private void answer(ToolCall call, Instant now) {
    SubAgentIds subAgent = SubAgentIds.of(call);
    String messageId = ToolCall.toolMessageId(call.id());
    SubAgentMessage message =
        conversations.append(
            subAgent,
            new NewMessage(
                messageId,
                SubAgentMessage.TOOL,
                call.error(),
                List.of(),
                call.modelCallId(),
                List.of(
                    OutboxEntry.of(
                        SubAgentConversations.added(subAgent, messageId, SubAgentMessage.TOOL, now),
                        codec))),
            now);
    outbox.publishOrLeaveToRelay(Collections.SUB_AGENT_MESSAGES, message.id(), message.outbox());
    mongo.updateFirst(holds.done(call.id()), new Update().unset(ToolCall.LEASE), ToolCall.class);
  }

  /** The task runs again once none of its calls awaits approval. */
  private void resumeTask(ToolCall call, Instant now) {
    boolean stillAwaiting =
        Exists.any(
            mongo,
            Query.query(
                Criteria.where("taskId")
                    .is(call.taskId())
                    .and("status")
                    .is(ToolCallStatus.awaiting_approval)),
            ToolCall.class);
    if (!stillAwaiting) {
      mongo.updateFirst(
          Query.query(Criteria.where("_id").is(call.taskId()).and("status").is(TaskStatus.waiting)),
          new Update().set("status", TaskStatus.running).set("updatedAt", now),
          Task.class);
    }
  }

  /** The error the model reads for a rejected call. */
  static String rejection(String reason) {
    return JSON.createObjectNode().put("error_type", "rejected").put("message", reason).toString();
  }

  private static String reasonOr(@Nullable String reason) {
    return reason == null || reason.isBlank() ? "rejected by the person" : reason.strip();
  }
}
