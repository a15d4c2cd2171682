package dev.agentrt.store;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One agent's task in a {@link Plan}.
 *
 * @param id unique in its plan
 * @param dependsOn the ids of the nodes whose results it needs: it starts once they all succeeded
 * @param taskId its task's id, derived from the plan's and its own ({@link Plans#taskId}); the task
 *     exists once the node is {@code running}
 * @param startedAt when it went {@code running}, or null before
 * @param endedAt when it ended (any status but {@code pending} and {@code running}), or null
 * @param result its task's result, once it succeeded
 * @param error why it failed, was cancelled or was skipped
 * @param skippedBecause for a skipped node, the node that failed (or was cancelled) first on its
 *     way
 */
public record PlanNode(
    String id,
    String agent,
    String instruction,
    List<String> dependsOn,
    PlanNodeStatus status,
    String taskId,
    @Nullable Instant startedAt,
    @Nullable Instant endedAt,
    @Nullable String result,
    @Nullable String error,
    @Nullable String skippedBecause) {

  /** A node not started yet. */
  public static PlanNode pending(
      String planId, String id, String agent, String instruction, List<String> dependsOn) {
    return new PlanNode(
        id,
        agent,
        instruction,
        List.copyOf(dependsOn),
        PlanNodeStatus.pending,
        Plans.taskId(planId, id),
        null,
        null,
        null,
        null,
        null);
  }
}
