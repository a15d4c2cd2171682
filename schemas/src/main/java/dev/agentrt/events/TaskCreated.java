package dev.agentrt.events;

import java.time.Instant;

/** The orchestrator decided to put an agent on a task. */
public record TaskCreated(
    String eventId,
    Instant occurredAt,
    String taskId,
    String chatId,
    String agent,
    String instruction)
    implements Event {

  @Override
  public String key() {
    return taskId;
  }
}
