package dev.agentrt.store;

import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Answers a {@code message_agent} call in the calling sub-agent's conversation: the {@code tool}
 * message with the child's answer or a structured error, and the {@code SubAgentMessageAdded} that
 * wakes the agent loop, as any tool result does. The message's id derives from the call, so a call
 * gets one answer, whoever writes it and however often (the agent loop refusing the call, the
 * finalizer delivering the child's outcome, each under redelivery).
 */
public final class DelegationReplies {

  /** The child answered: {@code {"agent", "conversation_id", "result"}}. */
  public static final String RESULT = "result";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final SubAgentConversations conversations;
  private final Outbox outbox;
  private final EventCodec codec;

  public DelegationReplies(SubAgentConversations conversations, Outbox outbox, EventCodec codec) {
    this.conversations = conversations;
    this.outbox = outbox;
    this.codec = codec;
  }

  /** The id of the tool message that answers the call {@code toolCallId}. */
  public static String messageId(String toolCallId) {
    return Ids.derived(toolCallId, "delegation-reply");
  }

  /**
   * Appends the call's tool message unless it is there, and publishes its event (or leaves it to
   * the relay).
   *
   * @param caller the sub-agent that made the call
   * @param toolCallId the call's id as the agent loop gives it
   * @param modelCallId the call's id as the model wrote it
   * @return the stored message, this one or the one stored before
   */
  public SubAgentMessage answer(
      SubAgentIds caller, String toolCallId, String modelCallId, String content, Instant at) {
    Instant now = at.truncatedTo(ChronoUnit.MILLIS);
    String id = messageId(toolCallId);
    SubAgentMessage message =
        conversations.append(
            caller,
            new NewMessage(
                id,
                SubAgentMessage.TOOL,
                content,
                List.of(),
                modelCallId,
                List.of(
                    OutboxEntry.of(
                        SubAgentConversations.added(caller, id, SubAgentMessage.TOOL, now),
                        codec))),
            now);
    outbox.publishOrLeaveToRelay(Collections.SUB_AGENT_MESSAGES, message.id(), message.outbox());
    return message;
  }

  /** A child's answer as the caller reads it. */
  public static String result(String agent, String conversationId, String result) {
    ObjectNode reply = JSON.createObjectNode();
    reply.put("agent", agent).put("conversation_id", conversationId).put(RESULT, result);
    return reply.toString();
  }

  /**
   * A structured error as the caller reads it: {@code {"error_type", "message"}}, with the agent
   * and conversation when there is one.
   */
  public static String error(
      String errorType, String message, @Nullable String agent, @Nullable String conversationId) {
    ObjectNode reply = JSON.createObjectNode();
    reply.put("error_type", errorType).put("message", message);
    if (agent != null) {
      reply.put("agent", agent);
    }
    if (conversationId != null) {
      reply.put("conversation_id", conversationId);
    }
    return reply.toString();
  }
}
