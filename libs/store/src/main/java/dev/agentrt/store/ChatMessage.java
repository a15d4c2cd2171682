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
 * @param awaitingDecision true on the person's message until the orchestrator has decided what it
 *     leads to; absent otherwise
 * @param toolCallId on the notifier's approval request, the call that awaits the decision (answered
 *     with {@code POST /api/chats/{id}/feedback}); absent otherwise
 * @param chat on the person's message, its chat's model and limits as the write that admitted it
 *     read them, which its decision uses rather than reading the chat; absent on messages stored
 *     before messages carried them
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
    List<OutboxEntry> outbox,
    @Nullable Boolean awaitingDecision,
    @Nullable String toolCallId,
    @Nullable ChatSettings chat) {

  public static final String USER = "user";
  public static final String ASSISTANT = "assistant";

  /** The field that marks the person's messages the orchestrator has yet to decide. */
  public static final String AWAITING_DECISION = "awaitingDecision";

  @PersistenceCreator
  public ChatMessage {}

  /**
   * A chat's settings for the runs a message starts: its model (null: the agents' or the default)
   * and its limits ({@link ChatLimits#NONE} for none).
   */
  public record ChatSettings(@Nullable String model, ChatLimits limits) {}

  public ChatMessage(
      String id,
      String chatId,
      String role,
      String content,
      @Nullable String taskId,
      @Nullable String model,
      @Nullable TurnUsage usage,
      Instant createdAt,
      List<OutboxEntry> outbox,
      @Nullable Boolean awaitingDecision) {
    this(
        id,
        chatId,
        role,
        content,
        taskId,
        model,
        usage,
        createdAt,
        outbox,
        awaitingDecision,
        null,
        null);
  }

  /** The assistant's request that the person approve or reject a tool call of a task. */
  public static ChatMessage approvalRequest(
      String id,
      String chatId,
      String content,
      String taskId,
      String toolCallId,
      Instant createdAt,
      List<OutboxEntry> outbox) {
    return new ChatMessage(
        id,
        chatId,
        ASSISTANT,
        content,
        taskId,
        null,
        null,
        createdAt,
        outbox,
        null,
        toolCallId,
        null);
  }

  /**
   * The person's message, awaiting the orchestrator's decision, with its chat's settings as read
   * when it was admitted (null: not read).
   */
  public static ChatMessage fromPerson(
      String id,
      String chatId,
      String content,
      @Nullable String model,
      @Nullable ChatSettings chat,
      Instant createdAt,
      List<OutboxEntry> outbox) {
    return new ChatMessage(
        id, chatId, USER, content, null, model, null, createdAt, outbox, true, null, chat);
  }

  /** A message that awaits no decision: the assistant's. */
  public ChatMessage(
      String id,
      String chatId,
      String role,
      String content,
      @Nullable String taskId,
      @Nullable String model,
      @Nullable TurnUsage usage,
      Instant createdAt,
      List<OutboxEntry> outbox) {
    this(id, chatId, role, content, taskId, model, usage, createdAt, outbox, null);
  }

  public ChatMessage(
      String id,
      String chatId,
      String role,
      String content,
      @Nullable String taskId,
      Instant createdAt,
      List<OutboxEntry> outbox) {
    this(id, chatId, role, content, taskId, null, null, createdAt, outbox, null);
  }
}
