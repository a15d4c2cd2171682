package dev.agentrt.events;

import java.time.Instant;

/** A sub-agent gave its final answer; the task succeeded with this result. */
public record TaskCompleted(
    String eventId,
    Instant occurredAt,
    String taskId,
    String chatId,
    String subAgentId,
    String result)
    implements Event {

  @Override
  public String key() {
    return taskId;
  }
}
