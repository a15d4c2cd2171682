package dev.agentrt.events;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A sub-agent waits for the person: it asked a question, or a call of a gated tool waits for their
 * approval ({@code toolCallId}, {@code tool} and {@code arguments} then say which call).
 */
public record TaskWaiting(
    String eventId,
    Instant occurredAt,
    String taskId,
    String chatId,
    String subAgentId,
    String question,
    @Nullable String toolCallId,
    @Nullable String tool,
    @Nullable String arguments)
    implements Event {

  /** A question the sub-agent asked through {@code ask_user}. */
  public TaskWaiting(
      String eventId,
      Instant occurredAt,
      String taskId,
      String chatId,
      String subAgentId,
      String question) {
    this(eventId, occurredAt, taskId, chatId, subAgentId, question, null, null, null);
  }

  /** A call of a gated tool that awaits the person's approval. */
  public static TaskWaiting approval(
      String eventId,
      Instant occurredAt,
      String taskId,
      String chatId,
      String subAgentId,
      String toolCallId,
      String tool,
      String arguments) {
    return new TaskWaiting(
        eventId,
        occurredAt,
        taskId,
        chatId,
        subAgentId,
        "May I run " + tool + " with " + arguments + "?",
        toolCallId,
        tool,
        arguments);
  }

  /** Whether it waits for an approval rather than an answer. */
  public boolean approval() {
    return toolCallId != null;
  }

  @Override
  public String key() {
    return taskId;
  }
}
