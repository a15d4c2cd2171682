package dev.agentrt.events;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The person cancelled a task. {@code progress} says in words what was done before it stopped (the
 * partial result), for the answer in the chat.
 */
public record TaskCancelled(
    String eventId,
    Instant occurredAt,
    String taskId,
    String chatId,
    @Nullable String subAgentId,
    String progress)
    implements Event {

  @Override
  public String key() {
    return taskId;
  }
}
