package dev.agentrt.store;

import dev.agentrt.events.ToolCallRequested;
import dev.agentrt.platform.outbox.OutboxEntry;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.data.annotation.PersistenceCreator;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/**
 * A tool call to execute. {@code modelCallId} is the id the model gave it (the tool message answers
 * it with {@code tool_call_id}); {@code id} is ours, derived from the sub-agent and that id.
 *
 * @param agent the name of the calling sub-agent's agent, whose tools the call must be among; null
 *     on calls stored before the field existed (read it from the sub-agent then)
 * @param stepId the step (model turn) that asked for the call: the id of its answer, the {@code
 *     stepId} of the run events of both; null on calls stored before the field existed
 * @param lease the hold of the tool-runner looking after the call ({@link Leases}): taken with the
 *     claim, renewed while the tool runs, kept after the outcome is recorded and unset once the
 *     tool message is appended; so a finished call that still has one may not be answered yet
 * @param resultAfter how many messages its conversation is expected to count when the call's result
 *     comes: the place of the answer that asked for it, plus the messages of its calls that were
 *     not run, plus the calls before it in that answer. A guess that spares the tool message a
 *     round trip when right (nothing else came, the calls before it were answered first: {@link
 *     SubAgentConversations#append(SubAgentIds, SubAgentConversations.NewMessage, long, Instant)});
 *     null on calls stored before the field existed
 */
@Document(Collections.SUB_AGENT_TOOL_CALLS)
public record ToolCall(
    @MongoId(FieldType.STRING) String id,
    String subAgentId,
    String taskId,
    String chatId,
    @Nullable String agent,
    @Nullable String stepId,
    String modelCallId,
    String name,
    String arguments,
    ToolCallStatus status,
    @Nullable String result,
    @Nullable String error,
    @Nullable Long latencyMs,
    @Nullable Lease lease,
    Instant createdAt,
    Instant updatedAt,
    List<OutboxEntry> outbox,
    @Nullable Long resultAfter) {

  @PersistenceCreator
  public ToolCall {}

  /** This call with an outcome stored: its status, result or error, latency and time. */
  public ToolCall recorded(
      ToolCallStatus status,
      @Nullable String result,
      @Nullable String error,
      long latencyMs,
      Instant at) {
    return new ToolCall(
        id,
        subAgentId,
        taskId,
        chatId,
        agent,
        stepId,
        modelCallId,
        name,
        arguments,
        status,
        result,
        error,
        latencyMs,
        lease,
        createdAt,
        at,
        outbox,
        resultAfter);
  }

  /** A call whose step, and so its result's place, is not known. */
  public ToolCall(
      String id,
      String subAgentId,
      String taskId,
      String chatId,
      @Nullable String agent,
      String modelCallId,
      String name,
      String arguments,
      ToolCallStatus status,
      @Nullable String result,
      @Nullable String error,
      @Nullable Long latencyMs,
      @Nullable Lease lease,
      Instant createdAt,
      Instant updatedAt,
      List<OutboxEntry> outbox) {
    this(
        id,
        subAgentId,
        taskId,
        chatId,
        agent,
        null,
        modelCallId,
        name,
        arguments,
        status,
        result,
        error,
        latencyMs,
        lease,
        createdAt,
        updatedAt,
        outbox,
        null);
  }

  /**
   * The event that asks the tool-runner to run this call, at {@code at}, carrying the call as
   * recorded so that the tool-runner need not read it; one per call (its id derives from the call).
   */
  public ToolCallRequested requested(Instant at) {
    return new ToolCallRequested(
        Ids.derived(id, "requested"),
        at,
        id,
        subAgentId,
        taskId,
        chatId,
        name,
        new ToolCallRequested.Call(agent, stepId, modelCallId, arguments, resultAfter));
  }

  /** The field of {@link #lease}. */
  public static final String LEASE = "lease";

  /**
   * The field of a gated call's decision, {@code {approved, by, at, reason}}: stored by the write
   * that moves it out of {@code awaiting_approval}, before anything runs on it.
   */
  public static final String DECISION = "decision";

  /** The id of the tool message that answers the call, whoever appends it. */
  public static String toolMessageId(String toolCallId) {
    return Ids.derived(toolCallId, "tool-message");
  }
}
