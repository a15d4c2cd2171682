package dev.agentrt.orchestrator.chat;

import dev.agentrt.store.Task;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** A task as the API shows it; absent fields are left out. */
record TaskView(
    String id,
    String agent,
    String instruction,
    String status,
    @Nullable String subAgentId,
    @Nullable String result,
    @Nullable String error,
    Instant createdAt,
    Instant updatedAt) {

  static TaskView of(Task t) {
    return new TaskView(
        t.id(),
        t.agent(),
        t.instruction(),
        t.status().name(),
        t.subAgentId(),
        t.result(),
        t.error(),
        t.createdAt(),
        t.updatedAt());
  }
}
