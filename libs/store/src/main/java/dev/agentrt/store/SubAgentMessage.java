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
 * One message of a sub-agent's conversation, in the chat-completions shape, so the ordered list of
 * a sub-agent's messages is its model context. {@code seq} orders them (unique per sub-agent).
 *
 * @param model on an assistant message, the model asked for the turn (null: the default model)
 * @param usage on an assistant message, the tokens of its turn
 * @param input on an assistant message, what its turn was given (absent on turns stored before
 *     turns kept it): the reference a replay rebuilds the turn's request from
 */
@Document(Collections.SUB_AGENT_MESSAGES)
public record SubAgentMessage(
    @MongoId(FieldType.STRING) String id,
    String subAgentId,
    String taskId,
    String chatId,
    long seq,
    String role,
    @Nullable String content,
    List<RequestedToolCall> toolCalls,
    @Nullable String toolCallId,
    @Nullable String model,
    @Nullable TurnUsage usage,
    @Nullable TurnInput input,
    Instant createdAt,
    List<OutboxEntry> outbox) {

  public static final String SYSTEM = "system";
  public static final String USER = "user";
  public static final String ASSISTANT = "assistant";
  public static final String TOOL = "tool";

  @PersistenceCreator
  public SubAgentMessage {}

  /** A message without a turn's input. */
  public SubAgentMessage(
      String id,
      String subAgentId,
      String taskId,
      String chatId,
      long seq,
      String role,
      @Nullable String content,
      List<RequestedToolCall> toolCalls,
      @Nullable String toolCallId,
      @Nullable String model,
      @Nullable TurnUsage usage,
      Instant createdAt,
      List<OutboxEntry> outbox) {
    this(
        id,
        subAgentId,
        taskId,
        chatId,
        seq,
        role,
        content,
        toolCalls,
        toolCallId,
        model,
        usage,
        null,
        createdAt,
        outbox);
  }

  public SubAgentMessage(
      String id,
      String subAgentId,
      String taskId,
      String chatId,
      long seq,
      String role,
      @Nullable String content,
      List<RequestedToolCall> toolCalls,
      @Nullable String toolCallId,
      Instant createdAt,
      List<OutboxEntry> outbox) {
    this(
        id,
        subAgentId,
        taskId,
        chatId,
        seq,
        role,
        content,
        toolCalls,
        toolCallId,
        null,
        null,
        null,
        createdAt,
        outbox);
  }
}
