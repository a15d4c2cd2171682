package dev.agentrt.store;

/**
 * The ids of a task's lifecycle events, derived from what caused each: written by the service that
 * publishes the event, and read back by the sweeps that find a lost one (agent-init, notifier,
 * finalizer), so that whoever comes first does the work once. One place for both sides.
 */
public final class TaskEventIds {

  private TaskEventIds() {}

  /** {@code TaskCreated} of the task. */
  public static String created(String taskId) {
    return Ids.derived(taskId, "created");
  }

  /** {@code TaskCancelled} of the task. */
  public static String cancelled(String taskId) {
    return Ids.derived(taskId, "cancelled");
  }

  /** {@code TaskWaiting} for the question the model asked in this answer. */
  public static String waiting(String answerId) {
    return Ids.derived(answerId, "waiting");
  }

  /** {@code TaskWaiting} for the approval this tool call awaits. */
  public static String awaitingApproval(String toolCallId) {
    return Ids.derived(toolCallId, "awaiting-approval");
  }

  /** {@code TaskCompleted} with this final answer. */
  public static String completed(String answerId) {
    return Ids.derived(answerId, "completed");
  }

  /** {@code TaskFailed} for the failure recorded as this message of the conversation. */
  public static String failed(String failureMessageId) {
    return Ids.derived(failureMessageId, "failed");
  }

  /** {@code TaskFailed} of a task whose agent is not declared (it never got a sub-agent). */
  public static String unknownAgent(String taskId) {
    return Ids.derived(taskId, "unknown-agent");
  }
}
