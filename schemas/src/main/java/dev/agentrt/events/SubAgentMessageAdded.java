package dev.agentrt.events;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A message was added to a sub-agent's conversation ({@code system}, {@code user} or {@code tool});
 * it may wake the agent loop.
 *
 * @param message what the loop needs of the message to go on without reading it, when its sender
 *     carried it (a short tool result, a short instruction); null otherwise, and on events
 *     published before events carried it
 * @param start on the instruction that starts a sub-agent, the sub-agent as agent-init made it and
 *     the system prompt before the instruction, so that the loop can take the first turn without
 *     reading either; null otherwise
 */
public record SubAgentMessageAdded(
    String eventId,
    Instant occurredAt,
    String subAgentId,
    String taskId,
    String chatId,
    String messageId,
    String role,
    @Nullable Carried message,
    @Nullable Start start)
    implements Event {

  /** An event that carries its message, or not, and no start. */
  public SubAgentMessageAdded(
      String eventId,
      Instant occurredAt,
      String subAgentId,
      String taskId,
      String chatId,
      String messageId,
      String role,
      @Nullable Carried message) {
    this(eventId, occurredAt, subAgentId, taskId, chatId, messageId, role, message, null);
  }

  /** An event that leaves the message in its document only. */
  public SubAgentMessageAdded(
      String eventId,
      Instant occurredAt,
      String subAgentId,
      String taskId,
      String chatId,
      String messageId,
      String role) {
    this(eventId, occurredAt, subAgentId, taskId, chatId, messageId, role, null, null);
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

  /**
   * A sub-agent just started: what its document holds ({@code sub_agents}, {@code settings}) and
   * its system prompt, the message before the instruction.
   *
   * @param agent the sub-agent's agent
   * @param systemPromptId the system prompt's message id
   * @param systemPrompt the system prompt's text
   * @param model the model chosen for its task; null: the agent's
   * @param limits the chat's limits; null: none
   * @param rootTaskId for a child task's sub-agent, the root of its tree
   * @param callerDeadline for a child task's sub-agent, the deadline of the call it answers
   * @param usageApart whether its turns are summed on its task only, not on its chat too; null on
   *     events published before sub-agents said so
   */
  public record Start(
      String agent,
      String systemPromptId,
      String systemPrompt,
      @Nullable String model,
      TaskCreated.@Nullable Limits limits,
      @Nullable String rootTaskId,
      @Nullable Instant callerDeadline,
      @Nullable Boolean usageApart) {}

  /**
   * This event, carrying its message and, for an instruction that starts a sub-agent, the start.
   */
  public SubAgentMessageAdded carrying(Carried message, @Nullable Start start) {
    return new SubAgentMessageAdded(
        eventId, occurredAt, subAgentId, taskId, chatId, messageId, role, message, start);
  }

  @Override
  public String key() {
    return subAgentId;
  }
}
