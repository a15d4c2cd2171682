package dev.agentrt.store;

import dev.agentrt.platform.outbox.OutboxEntry;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.data.annotation.Id;
import org.springframework.data.mongodb.core.mapping.Document;

/** Work the orchestrator gave an agent on behalf of a chat. */
@Document(Collections.TASKS)
public record Task(
    @Id String id,
    String chatId,
    String type,
    String agent,
    String instruction,
    TaskStatus status,
    @Nullable String subAgentId,
    @Nullable String result,
    @Nullable String error,
    Instant createdAt,
    Instant updatedAt,
    List<OutboxEntry> outbox) {

  public static final String TYPE_AGENT = "agent";
}
