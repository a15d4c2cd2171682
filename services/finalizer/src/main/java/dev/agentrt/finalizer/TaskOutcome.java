package dev.agentrt.finalizer;

import dev.agentrt.events.TaskCancelled;
import dev.agentrt.events.TaskCompleted;
import dev.agentrt.events.TaskFailed;

/**
 * How a task ended, from its {@code TaskCompleted}, {@code TaskFailed} or {@code TaskCancelled}
 * event.
 */
sealed interface TaskOutcome {

  String eventId();

  String taskId();

  String chatId();

  record Succeeded(String eventId, String taskId, String chatId, String result)
      implements TaskOutcome {}

  record Failed(String eventId, String taskId, String chatId, String error)
      implements TaskOutcome {}

  static TaskOutcome of(TaskCompleted completed) {
    return new Succeeded(
        completed.eventId(), completed.taskId(), completed.chatId(), completed.result());
  }

  static TaskOutcome of(TaskFailed failed) {
    return new Failed(failed.eventId(), failed.taskId(), failed.chatId(), failed.error());
  }

  /** A cancelled task did not finish: the person asked to stop; say so, with what was done. */
  static TaskOutcome of(TaskCancelled cancelled) {
    return new Failed(
        cancelled.eventId(),
        cancelled.taskId(),
        cancelled.chatId(),
        "it was cancelled at your request. " + cancelled.progress());
  }
}
