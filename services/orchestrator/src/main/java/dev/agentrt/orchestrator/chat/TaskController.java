package dev.agentrt.orchestrator.chat;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** Reads one task with its sub-agent's conversation and tool calls: what the agent saw and did. */
@RestController
@RequestMapping("/api/tasks")
class TaskController {

  private final TaskDetails details;

  TaskController(TaskDetails details) {
    this.details = details;
  }

  @GetMapping("/{taskId}")
  @Operation(
      summary = "A task, its sub-agent, the sub-agent's messages and its tool calls",
      responses = {
        @ApiResponse(responseCode = "200", description = "the task"),
        @ApiResponse(responseCode = "404", description = "no task with this id (problem detail)")
      })
  TaskDetails.View task(@PathVariable String taskId) {
    return details
        .of(taskId)
        .orElseThrow(
            () -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no task with id " + taskId));
  }
}
