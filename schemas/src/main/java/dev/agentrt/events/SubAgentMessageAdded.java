package dev.agentrt.events;

import java.time.Instant;

/**
 * A message was added to a sub-agent's conversation ({@code system}, {@code user} or {@code tool});
 * it may wake the agent loop.
 */
public record SubAgentMessageAdded(
    String eventId,
    Instant occurredAt,
    String subAgentId,
    String taskId,
    String chatId,
    String messageId,
    String role)
    implements Event {

  @Override
  public String key() {
    return subAgentId;
  }
}
