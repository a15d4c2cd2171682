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
 * @param deciding the orchestrator that is deciding this chat's messages, or null when none is
 * @param owner the user who created it; null on chats stored before there were users, which belong
 *     to the local user (docs/security.md)
 */
@Document(Collections.CHATS)
public record Chat(
    @MongoId(FieldType.STRING) String id,
    String title,
    @Nullable String model,
    Instant createdAt,
    @Nullable Usage usage,
    @Nullable ChatLimits limits,
    @Nullable Deciding deciding,
    @Nullable String owner) {

  @PersistenceCreator
  public Chat {}

  /** A chat without an owner: the local user's (a chat stored before there were users). */
  public Chat(
      String id,
      String title,
      @Nullable String model,
      Instant createdAt,
      @Nullable Usage usage,
      @Nullable ChatLimits limits,
      @Nullable Deciding deciding) {
    this(id, title, model, createdAt, usage, limits, deciding, null);
  }

  public Chat(String id, String title, Instant createdAt) {
    this(id, title, null, createdAt, null, null, null, null);
  }

  public Chat(String id, String title, Instant createdAt, String owner) {
    this(id, title, null, createdAt, null, null, null, owner);
  }

  /**
   * An orchestrator holds the chat while it decides the chat's messages, one at a time and in order
   * ({@link Leases}); it renews its hold while alive, and once {@code leaseUntil} passes another
   * may take it.
   *
   * @param holder the orchestrator instance holding it; null once it let go
   */
  public record Deciding(@Nullable String holder, Instant leaseUntil) {}
}
