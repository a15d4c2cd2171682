package dev.agentrt.store;

import dev.agentrt.platform.outbox.OutboxEntry;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/** Work the orchestrator gave an agent on behalf of a chat. */
@Document(Collections.TASKS)
public record Task(
    @MongoId(FieldType.STRING) String id,
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
