package dev.agentrt.toolrunner.calls;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Collections;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentIds;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.stereotype.Component;

/**
 * Answers a tool call in its sub-agent's conversation: the {@code tool} message carrying the result
 * or error and how the call ended ({@link SubAgentMessage#toolStatus}), and the {@code
 * SubAgentMessageAdded} that wakes the agent loop. The message's id derives from the call, so
 * answering twice stores one message: the first answer stored is the call's answer, whoever stored
 * it, and the call's outcome is recorded from it ({@link ToolCalls#queueRecord}).
 */
@Component
class ToolMessages {

  private final ToolCalls calls;
  private final SubAgentConversations conversations;
  private final Outbox outbox;
  private final EventCodec codec;
  private final MongoTemplate mongo;
  private final Clock clock = Clock.systemUTC();

  ToolMessages(
      ToolCalls calls,
      SubAgentConversations conversations,
      Outbox outbox,
      EventCodec codec,
      MongoTemplate mongo) {
    this.calls = calls;
    this.conversations = conversations;
    this.outbox = outbox;
    this.codec = codec;
    this.mongo = mongo;
  }

  static String messageId(String toolCallId) {
    return ToolCall.toolMessageId(toolCallId);
  }

  /**
   * Appends the tool message answering the call with this outcome, unless the call was answered
   * before, without publishing it ({@link #publish}). The call carries its sub-agent's ids, so
   * neither it nor the sub-agent is read again, and the place its result expects ({@link
   * ToolCall#resultAfter}), taken in the bulk write while no other message came first.
   *
   * @return the call's answer as stored: this one, or the one appended before
   */
  SubAgentMessage append(ToolCall call, ToolCallStatus status, String content) {
    SubAgentIds subAgent = SubAgentIds.of(call);
    // Millisecond precision, as MongoDB stores it: the event's time is the message's createdAt.
    Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
    String messageId = messageId(call.id());
    SubAgentMessageAdded added =
        SubAgentConversations.added(subAgent, messageId, SubAgentMessage.TOOL, now);
    NewMessage toolMessage =
        NewMessage.toolResult(
            messageId, call.modelCallId(), status, content, List.of(OutboxEntry.of(added, codec)));
    return call.resultAfter() == null
        ? conversations.append(subAgent, toolMessage, now)
        : conversations.append(subAgent, toolMessage, call.resultAfter(), now);
  }

  /** Publishes the answer's event, unless that was done before. */
  void publish(SubAgentMessage answer) {
    outbox.publishOrLeaveToRelay(Collections.SUB_AGENT_MESSAGES, answer.id(), answer.outbox());
  }

  /** The tool message answering the call, if one was appended. */
  Optional<SubAgentMessage> find(ToolCall call) {
    return Optional.ofNullable(mongo.findById(messageId(call.id()), SubAgentMessage.class));
  }

  /**
   * Answers a call whose outcome was stored before its answer (a rejected call: the orchestrator
   * records the rejection, then answers it), if it still holds its lease (not answered yet): the
   * tool message from the outcome as stored, published, and the hold ended.
   */
  void answer(ToolCall call) {
    if (!ToolCalls.finished(call) || call.lease() == null) {
      return;
    }
    boolean succeeded = call.status() == ToolCallStatus.success;
    publish(append(call, call.status(), succeeded ? call.result() : call.error()));
    calls.answered(call.id());
  }
}
