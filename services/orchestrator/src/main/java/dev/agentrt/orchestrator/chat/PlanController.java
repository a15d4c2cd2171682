package dev.agentrt.orchestrator.chat;

import dev.agentrt.store.Plan;
import dev.agentrt.store.PlanNode;
import dev.agentrt.store.PlanNodeStatus;
import dev.agentrt.store.PlanStatus;
import dev.agentrt.store.Plans;
import dev.agentrt.store.TaskCancellation;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * A chat's plans: list them, read one with its nodes, or cancel one. Who may see or cancel a plan
 * is who may see or act on its chat ({@link ChatAccess}).
 */
@RestController
class PlanController {

  private final ChatAccess access;
  private final Plans plans;
  private final TaskCancellation cancellation;

  PlanController(ChatAccess access, Plans plans, TaskCancellation cancellation) {
    this.access = access;
    this.plans = plans;
    this.cancellation = cancellation;
  }

  @GetMapping("/api/chats/{chatId}/plans")
  @Operation(
      summary = "The chat's plans, oldest first, each with its nodes",
      responses = {
        @ApiResponse(responseCode = "200", description = "the plans"),
        @ApiResponse(responseCode = "404", description = "no chat with this id (problem detail)")
      })
  List<PlanView> plansOf(@PathVariable String chatId) {
    if (access.readable(chatId).isEmpty()) {
      throw new ResponseStatusException(HttpStatus.NOT_FOUND, "no chat with id " + chatId);
    }
    return plans.ofChat(chatId).stream().map(PlanView::of).toList();
  }

  @GetMapping("/api/plans/{planId}")
  @Operation(
      summary = "A plan: its status and each node's status, task, start and end",
      responses = {
        @ApiResponse(responseCode = "200", description = "the plan"),
        @ApiResponse(responseCode = "404", description = "no plan with this id (problem detail)")
      })
  PlanView plan(@PathVariable String planId) {
    return PlanView.of(access.readablePlan(planId).orElseThrow(() -> noPlan(planId)));
  }

  @PostMapping("/api/plans/{planId}/cancel")
  @ResponseStatus(HttpStatus.ACCEPTED)
  @Operation(
      summary =
          "Cancel a plan: its running nodes' tasks are cancelled, its pending nodes never start",
      responses = {
        @ApiResponse(responseCode = "202", description = "the plan is being cancelled"),
        @ApiResponse(responseCode = "404", description = "no plan with this id (problem detail)"),
        @ApiResponse(
            responseCode = "409",
            description = "the plan has already ended (problem detail)")
      })
  PlanView cancel(@PathVariable String planId) {
    if (access.writablePlan(planId).isEmpty()) {
      throw noPlan(planId);
    }
    Plan plan = plans.requestCancel(planId).orElseThrow(() -> noPlan(planId));
    if (plan.status() != PlanStatus.running) {
      throw new ResponseStatusException(
          HttpStatus.CONFLICT, "plan " + planId + " has already ended: " + plan.status());
    }
    for (PlanNode node : plan.nodes()) {
      if (node.status() == PlanNodeStatus.running) {
        cancellation.cancel(node.taskId()); // an ended one is its plan's to record
      }
    }
    // Cancels the pending nodes at once, and ends the plan if nothing runs any more; the tasks'
    // TaskCancelled events move it on too, in the finalizer, which answers it.
    return PlanView.of(plans.advance(planId).orElseThrow(() -> noPlan(planId)));
  }

  private static ResponseStatusException noPlan(String planId) {
    return new ResponseStatusException(HttpStatus.NOT_FOUND, "no plan with id " + planId);
  }
}
