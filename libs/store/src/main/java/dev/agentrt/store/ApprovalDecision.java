package dev.agentrt.store;

import java.time.Instant;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * A decision on a tool call that awaited a person's approval: stored on the call ({@link
 * ToolCall#DECISION}) by the write that moves it out of {@code awaiting_approval}, before anything
 * runs on it, then recorded as the chat's {@code approval_decided} run event, keyed by the call, so
 * the ledger has one per call whoever decided.
 *
 * @param by who decided: a user's name, {@link #TIMEOUT}, {@link #CANCELLATION} or {@link
 *     #RUN_FAILED}
 * @param reason why, for a rejection; null for an approval
 * @param messageId the person's chat message that decided ("approve", "reject: …"), if one did
 */
public record ApprovalDecision(
    boolean approved, String by, Instant at, @Nullable String reason, @Nullable String messageId) {

  /** Who rejects a call nobody decided within the approval timeout. */
  public static final String TIMEOUT = "timeout";

  /** Who rejects a call whose task was cancelled while it awaited a decision. */
  public static final String CANCELLATION = "cancellation";

  /** Who rejects a call whose run failed (a limit reached) while it awaited a decision. */
  public static final String RUN_FAILED = "run_failed";

  /** The decision as the call stores it: {@code {approved, by, at, reason?, messageId?}}. */
  public Document document() {
    Document decision = new Document("approved", approved).append("by", by).append("at", at);
    if (reason != null) {
      decision.append("reason", reason);
    }
    if (messageId != null) {
      decision.append("messageId", messageId);
    }
    return decision;
  }

  /** Records it as the call's {@code approval_decided} in the chat's ledger, once. */
  public void record(RunLedger ledger, ToolCall call) {
    ledger.append(
        call.chatId(),
        RunEvent.APPROVAL_DECIDED + "/" + call.id(),
        RunEvent.APPROVAL_DECIDED,
        call.taskId(),
        call.subAgentId(),
        call.agent(),
        RunLedger.data(
            "toolCallId",
            call.id(),
            "tool",
            call.name(),
            "approved",
            approved,
            "by",
            by,
            "at",
            at.toString(),
            "reason",
            reason));
  }
}
