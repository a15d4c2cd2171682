package dev.agentrt.events;

import java.time.Instant;

/** A model turn asked for a tool call; its document holds the arguments. */
public record ToolCallRequested(
    String eventId,
    Instant occurredAt,
    String toolCallId,
    String subAgentId,
    String taskId,
    String chatId,
    String name)
    implements Event {

  @Override
  public String key() {
    return subAgentId;
  }
}
