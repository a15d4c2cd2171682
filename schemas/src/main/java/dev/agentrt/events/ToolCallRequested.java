package dev.agentrt.events;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A model turn asked for a tool call; its document holds the arguments.
 *
 * @param call what the tool-runner needs of the call, as its document was recorded with, so that a
 *     claim need not read the document back; null on events published before events carried it
 */
public record ToolCallRequested(
    String eventId,
    Instant occurredAt,
    String toolCallId,
    String subAgentId,
    String taskId,
    String chatId,
    String name,
    @Nullable Call call)
    implements Event {

  /** An event that leaves the call in its document only. */
  public ToolCallRequested(
      String eventId,
      Instant occurredAt,
      String toolCallId,
      String subAgentId,
      String taskId,
      String chatId,
      String name) {
    this(eventId, occurredAt, toolCallId, subAgentId, taskId, chatId, name, null);
  }

  /**
   * The call's fields as its document holds them ({@code sub_agent_tool_calls}).
   *
   * @param agent the calling sub-agent's agent; null on calls recorded before calls named it
   * @param stepId the model turn's answer that asked for it; null on calls recorded before
   * @param modelCallId the id the model gave the call
   * @param arguments the arguments, the JSON text the model wrote
   * @param resultAfter the conversation's count its result expects; null when not known
   */
  public record Call(
      @Nullable String agent,
      @Nullable String stepId,
      String modelCallId,
      String arguments,
      @Nullable Long resultAfter) {}

  @Override
  public String key() {
    return subAgentId;
  }
}
