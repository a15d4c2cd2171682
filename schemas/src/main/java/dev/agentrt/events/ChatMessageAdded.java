package dev.agentrt.events;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** A message was stored in a chat: the person's, or an answer or question from the assistant. */
public record ChatMessageAdded(
    String eventId,
    Instant occurredAt,
    String chatId,
    String messageId,
    String role,
    @Nullable String taskId)
    implements Event {

  @Override
  public String key() {
    return chatId;
  }
}
