package dev.agentrt.events;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The orchestrator decided to put an agent on a task, or an agent's {@code message_agent} call
 * started a child task.
 *
 * @param parentTaskId for a child task, the task of the agent that called; null for a root task
 * @param depth 0 for a root task, the child's depth below it otherwise; null on events published
 *     before tasks had a depth
 * @param parentToolCallId for a child task, the call that started it
 */
public record TaskCreated(
    String eventId,
    Instant occurredAt,
    String taskId,
    String chatId,
    String agent,
    String instruction,
    @Nullable String parentTaskId,
    @Nullable Integer depth,
    @Nullable String parentToolCallId)
    implements Event {

  /** A task the orchestrator started. */
  public TaskCreated(
      String eventId,
      Instant occurredAt,
      String taskId,
      String chatId,
      String agent,
      String instruction) {
    this(eventId, occurredAt, taskId, chatId, agent, instruction, null, null, null);
  }

  @Override
  public String key() {
    return taskId;
  }
}
