package dev.agentrt.orchestrator.chat;

import dev.agentrt.orchestrator.models.Pricing;
import dev.agentrt.store.Task;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A task as the API shows it; absent fields are left out.
 *
 * @param model the model chosen for the message or chat that started it (absent: the agent's model,
 *     else the default)
 * @param usage its sub-agent's turns and its final answers
 * @param parentTaskId for a child task, the task whose agent started it with {@code message_agent}
 * @param depth 0 for a task the orchestrator started, 1 for its child, and so on
 * @param startedAt when its sub-agent was put on it
 * @param endedAt when it last ended
 * @param children the ids of the child tasks its agent started, oldest first
 * @param routing why the orchestrator chose its agent: {@code confidence}, {@code reason}, {@code
 *     fallback} (absent for a child task)
 * @param failureReason when it failed, the stable code of why ({@code model_error}, {@code
 *     budget_exceeded}, …)
 */
record TaskView(
    String id,
    String agent,
    String instruction,
    @Nullable String model,
    String status,
    @Nullable String subAgentId,
    @Nullable String result,
    @Nullable String error,
    UsageView usage,
    Instant createdAt,
    Instant updatedAt,
    @Nullable String parentTaskId,
    int depth,
    @Nullable Instant startedAt,
    @Nullable Instant endedAt,
    List<String> children,
    Task.@Nullable Routing routing,
    @Nullable String failureReason) {

  static TaskView of(Task t, Pricing pricing, List<String> children) {
    return new TaskView(
        t.id(),
        t.agent(),
        t.instruction(),
        t.model(),
        t.status().name(),
        t.subAgentId(),
        t.result(),
        t.error(),
        UsageView.of(t.usage(), pricing),
        t.createdAt(),
        t.updatedAt(),
        t.delegation() == null ? null : t.delegation().parentTaskId(),
        t.depth(),
        t.startedAt(),
        t.endedAt(),
        children,
        t.routing(),
        t.failureReason());
  }
}
