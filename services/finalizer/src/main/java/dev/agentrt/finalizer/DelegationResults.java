package dev.agentrt.finalizer;

import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.DelegationReplies;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentIds;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import java.time.Clock;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The outcome of a child task goes to the {@code message_agent} call that started (or last woke)
 * it, as that call's tool message, and wakes the caller; never to the chat as an answer. What is
 * delivered is the task as stored, not the event: a redelivered or late event of an earlier run
 * delivers the outcome of the task's current call, which is stored once (the message's id derives
 * from the call), and a task woken again meanwhile gets nothing until it ends.
 */
@Component
class DelegationResults {

  private final DelegationReplies replies;
  private final RunLedger ledger;
  private final Clock clock = Clock.systemUTC();

  DelegationResults(
      SubAgentConversations conversations, Outbox outbox, EventCodec codec, RunLedger ledger) {
    this.replies = new DelegationReplies(conversations, outbox, codec);
    this.ledger = ledger;
  }

  /**
   * Delivers the outcome to the caller if the task is a child task.
   *
   * @param task the outcome's task as stored now (null: it is not)
   * @return false for a task the orchestrator started (its answer goes to the chat); true for a
   *     child task, whether its outcome was delivered now, before, or is not due (woken again)
   */
  boolean deliver(TaskOutcome outcome, @Nullable Task task) {
    if (task == null || task.delegation() == null) {
      return false;
    }
    String content =
        switch (task.status()) {
          case success ->
              DelegationReplies.result(
                  task.agent(), task.conversationId(), task.result() == null ? "" : task.result());
          case failed ->
              DelegationReplies.error(
                  "agent_failed",
                  "the " + task.agent() + " could not finish: " + task.error(),
                  task.agent(),
                  task.conversationId());
          case cancelled ->
              DelegationReplies.error(
                  "cancelled",
                  "the " + task.agent() + "'s task was cancelled",
                  task.agent(),
                  task.conversationId());
          default -> null; // woken again: its next outcome answers its current call
        };
    if (content == null) {
      return true;
    }
    Task.Delegation call = task.delegation();
    replies.answer(
        new SubAgentIds(call.parentSubAgentId(), call.parentTaskId(), task.chatId()),
        call.toolCallId(),
        call.modelCallId(),
        content,
        clock.instant());
    ledger.append(
        task.chatId(),
        "delegation_end/" + call.toolCallId(),
        RunEvent.DELEGATION_END,
        call.parentTaskId(),
        call.parentSubAgentId(),
        null,
        RunLedger.data(
            "agent",
            task.agent(),
            "childTaskId",
            task.id(),
            "status",
            task.status().name(),
            "result",
            RunLedger.excerpt(task.status() == TaskStatus.success ? task.result() : task.error())));
    return true;
  }
}
