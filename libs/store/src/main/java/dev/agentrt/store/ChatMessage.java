package dev.agentrt.store;

import dev.agentrt.platform.outbox.OutboxEntry;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/** A message in a chat: the person's ({@code user}) or the assistant's. */
@Document(Collections.CHAT_MESSAGES)
public record ChatMessage(
    @MongoId(FieldType.STRING) String id,
    String chatId,
    String role,
    String content,
    @Nullable String taskId,
    Instant createdAt,
    List<OutboxEntry> outbox) {

  public static final String USER = "user";
  public static final String ASSISTANT = "assistant";
}
