package dev.agentrt.orchestrator.chat;

import dev.agentrt.orchestrator.models.Pricing;
import dev.agentrt.store.Task;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A task as the API shows it; absent fields are left out.
 *
 * @param model the model chosen for the message or chat that started it (absent: the agent's model,
 *     else the default)
 * @param usage its sub-agent's turns and its final answers
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
    Instant updatedAt) {

  static TaskView of(Task t, Pricing pricing) {
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
        t.updatedAt());
  }
}
