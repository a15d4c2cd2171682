package dev.agentrt.events;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A message was added to a sub-agent's conversation ({@code system}, {@code user} or {@code tool});
 * it may wake the agent loop.
 *
 * @param message what the loop needs of the message to go on without reading it, when its sender
 *     carried it (a short tool result); null otherwise, and on events published before events
 *     carried it
 */
public record SubAgentMessageAdded(
    String eventId,
    Instant occurredAt,
    String subAgentId,
    String taskId,
    String chatId,
    String messageId,
    String role,
    @Nullable Carried message)
    implements Event {

  /** An event that leaves the message in its document only. */
  public SubAgentMessageAdded(
      String eventId,
      Instant occurredAt,
      String subAgentId,
      String taskId,
      String chatId,
      String messageId,
      String role) {
    this(eventId, occurredAt, subAgentId, taskId, chatId, messageId, role, null);
  }

  /**
   * The message's fields as its document holds them ({@code sub_agent_messages}), stored at the
   * event's {@code occurredAt}; but for its place in the conversation, which is not known when the
   * event is made.
   *
   * @param content the message's text
   * @param toolCallId on a tool message, the id the model gave the call it answers
   */
  public record Carried(String content, @Nullable String toolCallId) {}

  @Override
  public String key() {
    return subAgentId;
  }
}
