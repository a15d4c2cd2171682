package dev.agentrt.events;

import java.time.Instant;

/** A sub-agent asked the person a question and waits for the answer. */
public record TaskWaiting(
    String eventId,
    Instant occurredAt,
    String taskId,
    String chatId,
    String subAgentId,
    String question)
    implements Event {

  @Override
  public String key() {
    return taskId;
  }
}
