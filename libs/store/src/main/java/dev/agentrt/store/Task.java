package dev.agentrt.store;

import dev.agentrt.platform.outbox.OutboxEntry;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.data.annotation.PersistenceCreator;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/**
 * Work the orchestrator gave an agent on behalf of a chat.
 *
 * @param model the model its sub-agent and its final answer use, chosen for the message or the chat
 *     that started it; null: the agent's model, else the default model
 * @param usage its sub-agent's stored turns and its final answers
 */
@Document(Collections.TASKS)
public record Task(
    @MongoId(FieldType.STRING) String id,
    String chatId,
    String type,
    String agent,
    String instruction,
    @Nullable String model,
    TaskStatus status,
    @Nullable String subAgentId,
    @Nullable String result,
    @Nullable String error,
    @Nullable Usage usage,
    Instant createdAt,
    Instant updatedAt,
    List<OutboxEntry> outbox) {

  public static final String TYPE_AGENT = "agent";

  @PersistenceCreator
  public Task {}

  public Task(
      String id,
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
    this(
        id,
        chatId,
        type,
        agent,
        instruction,
        null,
        status,
        subAgentId,
        result,
        error,
        null,
        createdAt,
        updatedAt,
        outbox);
  }
}
