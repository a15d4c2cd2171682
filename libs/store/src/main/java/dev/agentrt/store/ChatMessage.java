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
 * A message in a chat: the person's ({@code user}) or the assistant's.
 *
 * @param model on the person's message, the model they chose for it (its decision and the task it
 *     starts); on an assistant message the model wrote, the model asked (null: the default model)
 * @param usage on an assistant message the model wrote, the tokens of the model turns behind it
 */
@Document(Collections.CHAT_MESSAGES)
public record ChatMessage(
    @MongoId(FieldType.STRING) String id,
    String chatId,
    String role,
    String content,
    @Nullable String taskId,
    @Nullable String model,
    @Nullable TurnUsage usage,
    Instant createdAt,
    List<OutboxEntry> outbox) {

  public static final String USER = "user";
  public static final String ASSISTANT = "assistant";

  @PersistenceCreator
  public ChatMessage {}

  public ChatMessage(
      String id,
      String chatId,
      String role,
      String content,
      @Nullable String taskId,
      Instant createdAt,
      List<OutboxEntry> outbox) {
    this(id, chatId, role, content, taskId, null, null, createdAt, outbox);
  }
}
