package dev.agentrt.events;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The orchestrator decided to put an agent on a task, or an agent's {@code message_agent} call
 * started a child task.
 *
 * @param parentTaskId for a child task, the task of the agent that called; null for a root task
 * @param depth 0 for a root task, the child's depth below it otherwise; null on events published
 *     before tasks had a depth
 * @param parentToolCallId for a child task, the call that started it
 * @param chatLimits the chat's limits as the task's creator read them, so that its start need not
 *     read the chat; null when the creator did not read them, and on events published before events
 *     carried them
 * @param start what the task's start needs of the task that the fields above do not say, so that
 *     agent-init starts a root task without reading it; null on events published before events
 *     carried it
 */
public record TaskCreated(
    String eventId,
    Instant occurredAt,
    String taskId,
    String chatId,
    String agent,
    String instruction,
    @Nullable String parentTaskId,
    @Nullable Integer depth,
    @Nullable String parentToolCallId,
    @Nullable Limits chatLimits,
    @Nullable Start start)
    implements Event {

  /** {@link TaskCreated} without the chat's limits and the start's settings. */
  public TaskCreated(
      String eventId,
      Instant occurredAt,
      String taskId,
      String chatId,
      String agent,
      String instruction,
      @Nullable String parentTaskId,
      @Nullable Integer depth,
      @Nullable String parentToolCallId) {
    this(
        eventId,
        occurredAt,
        taskId,
        chatId,
        agent,
        instruction,
        parentTaskId,
        depth,
        parentToolCallId,
        null,
        null);
  }

  /** A task the orchestrator started. */
  public TaskCreated(
      String eventId,
      Instant occurredAt,
      String taskId,
      String chatId,
      String agent,
      String instruction) {
    this(eventId, occurredAt, taskId, chatId, agent, instruction, null, null, null, null, null);
  }

  /**
   * Limits a person set for the chat's runs (the store's {@code ChatLimits}); a null field sets
   * none, so all null: the chat has no limits.
   *
   * @param maxSteps model turns per run
   * @param maxTokens tokens (prompt and completion) per run
   * @param deadlineSeconds seconds of work per run
   */
  public record Limits(
      @Nullable Integer maxSteps, @Nullable Long maxTokens, @Nullable Long deadlineSeconds) {}

  /**
   * What the task was created with that its start needs (the store's {@code Task}).
   *
   * @param model the model the task's agent asks; null for the default model
   */
  public record Start(@Nullable String model) {}

  @Override
  public String key() {
    return taskId;
  }
}
