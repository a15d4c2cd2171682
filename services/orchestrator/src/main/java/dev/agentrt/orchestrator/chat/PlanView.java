package dev.agentrt.orchestrator.chat;

import dev.agentrt.store.Plan;
import dev.agentrt.store.PlanNode;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A plan as the API shows it: its status, and each node with its status, its task and when it ran.
 *
 * @param request the person's message the plan answers
 * @param answerId the chat message that answered it, once written
 */
record PlanView(
    String id,
    String chatId,
    String messageId,
    String request,
    String status,
    boolean cancelRequested,
    List<Node> nodes,
    @Nullable String answerId,
    Instant createdAt,
    @Nullable Instant endedAt) {

  /**
   * @param skippedBecause for a skipped node, the node that did not succeed on its way
   */
  record Node(
      String id,
      String agent,
      String instruction,
      List<String> dependsOn,
      String status,
      String taskId,
      @Nullable Instant startedAt,
      @Nullable Instant endedAt,
      @Nullable String result,
      @Nullable String error,
      @Nullable String skippedBecause) {

    static Node of(PlanNode node) {
      return new Node(
          node.id(),
          node.agent(),
          node.instruction(),
          node.dependsOn(),
          node.status().name(),
          node.taskId(),
          node.startedAt(),
          node.endedAt(),
          node.result(),
          node.error(),
          node.skippedBecause());
    }
  }

  static PlanView of(Plan plan) {
    return new PlanView(
        plan.id(),
        plan.chatId(),
        plan.messageId(),
        plan.request(),
        plan.status().name(),
        plan.cancelRequested(),
        plan.nodes().stream().map(Node::of).toList(),
        plan.answerId(),
        plan.createdAt(),
        plan.endedAt());
  }
}
