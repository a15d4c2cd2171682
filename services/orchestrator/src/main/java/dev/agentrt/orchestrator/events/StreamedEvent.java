package dev.agentrt.orchestrator.events;

import dev.agentrt.store.RunEvent;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A run event as clients see it: the event stream's {@code data:}, the completions' extra field.
 */
public record StreamedEvent(
    long seq,
    String type,
    Instant at,
    String chatId,
    @Nullable String taskId,
    @Nullable String subAgentId,
    @Nullable String agent,
    Map<String, Object> data) {

  public static StreamedEvent of(RunEvent e) {
    return new StreamedEvent(
        e.seq(), e.type(), e.at(), e.chatId(), e.taskId(), e.subAgentId(), e.agent(), e.data());
  }
}
