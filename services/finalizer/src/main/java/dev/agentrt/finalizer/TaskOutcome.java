package dev.agentrt.finalizer;

import dev.agentrt.events.TaskCompleted;
import dev.agentrt.events.TaskFailed;

/** How a task ended, from its {@code TaskCompleted} or {@code TaskFailed} event. */
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
}
