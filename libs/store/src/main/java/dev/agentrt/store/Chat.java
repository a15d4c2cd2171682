package dev.agentrt.store;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.data.annotation.PersistenceCreator;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/**
 * A conversation between a person and the orchestrator.
 *
 * @param model the model the person chose for this chat (its decisions and the tasks it starts), or
 *     null for the agent's or the default model
 * @param usage every stored model turn made for this chat: decisions, sub-agents' turns, final
 *     answers
 * @param limits the person's limits for this chat's runs, or null for the global and agents' ones
 */
@Document(Collections.CHATS)
public record Chat(
    @MongoId(FieldType.STRING) String id,
    String title,
    @Nullable String model,
    Instant createdAt,
    @Nullable Usage usage,
    @Nullable ChatLimits limits) {

  @PersistenceCreator
  public Chat {}

  public Chat(String id, String title, Instant createdAt) {
    this(id, title, null, createdAt, null, null);
  }
}
