package dev.agentrt.events;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A task ended without a result. {@code reason} is a stable code (for example {@code model_error},
 * {@code step_limit_exceeded}); {@code error} says in words what went wrong.
 */
public record TaskFailed(
    String eventId,
    Instant occurredAt,
    String taskId,
    String chatId,
    @Nullable String subAgentId,
    String reason,
    String error)
    implements Event {

  @Override
  public String key() {
    return taskId;
  }
}
