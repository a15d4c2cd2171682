package dev.agentrt.orchestrator.chat;

import dev.agentrt.store.Task;
import dev.agentrt.store.TaskCancellation;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * One task: read it with its sub-agent's conversation and tool calls (what the agent saw and did),
 * cancel it, or replay one of its model turns.
 */
@RestController
@RequestMapping("/api/tasks")
class TaskController {

  private final ChatAccess access;
  private final TaskDetails details;
  private final TaskCancellation cancellation;
  private final TurnReplay replays;

  TaskController(
      ChatAccess access, TaskDetails details, TaskCancellation cancellation, TurnReplay replays) {
    this.access = access;
    this.details = details;
    this.cancellation = cancellation;
    this.replays = replays;
  }

  record Cancelled(String id, String status) {}

  @PostMapping("/{taskId}/cancel")
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(
      summary = "Cancel a task: no further model turns or tool calls are scheduled",
      responses = {
        @ApiResponse(responseCode = "202", description = "the task is cancelled"),
        @ApiResponse(responseCode = "404", description = "no task with this id (problem detail)"),
        @ApiResponse(
            responseCode = "409",
            description = "the task has already ended (problem detail)")
      })
  Cancelled cancel(@PathVariable String taskId) {
    if (access.writableTask(taskId).isEmpty()) {
      throw noTask(taskId);
    }
    return switch (cancellation.cancel(taskId)) {
      case TaskCancellation.Result.Cancelled cancelled ->
          new Cancelled(taskId, cancelled.task().status().name());
      case TaskCancellation.Result.AlreadyEnded ended ->
          throw new ResponseStatusException(
              HttpStatus.CONFLICT,
              "task " + taskId + " has already ended: " + ended.task().status().name());
      case TaskCancellation.Result.NotFound notFound -> throw noTask(taskId);
    };
  }

  /**
   * @param model the model to ask instead of the turn's own; absent: the turn's
   */
  record ReplayRequest(@Nullable String model) {}

  @PostMapping("/{taskId}/turns/{turn}/replay")
  @Operation(
      summary =
          "Run one model turn again on exactly its input, without any side effect, and return the"
              + " new answer beside the recorded one",
      responses = {
        @ApiResponse(responseCode = "200", description = "the recorded and the replayed answer"),
        @ApiResponse(
            responseCode = "400",
            description = "a turn number below 1, or an unknown model (problem detail)"),
        @ApiResponse(responseCode = "404", description = "no task with this id (problem detail)"),
        @ApiResponse(
            responseCode = "409",
            description =
                "the task has not taken this turn, or the turn cannot be replayed (problem"
                    + " detail)"),
        @ApiResponse(responseCode = "502", description = "the model failed (problem detail)")
      })
  TurnReplay.Replay replay(
      @PathVariable String taskId,
      @PathVariable int turn,
      @RequestBody(required = false) @Nullable ReplayRequest request) {
    Task task = access.writableTask(taskId).orElseThrow(() -> noTask(taskId));
    return replays.replay(task, turn, request == null ? null : request.model());
  }

  @GetMapping("/{taskId}")
  @Operation(
      summary = "A task, its sub-agent, the sub-agent's messages and its tool calls",
      responses = {
        @ApiResponse(responseCode = "200", description = "the task"),
        @ApiResponse(responseCode = "404", description = "no task with this id (problem detail)")
      })
  TaskDetails.View task(@PathVariable String taskId) {
    if (access.readableTask(taskId).isEmpty()) {
      throw noTask(taskId);
    }
    return details.of(taskId).orElseThrow(() -> noTask(taskId));
  }

  private static ResponseStatusException noTask(String taskId) {
    return new ResponseStatusException(HttpStatus.NOT_FOUND, "no task with id " + taskId);
  }
}
