package dev.agentrt.toolrunner.calls;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Collections;
import dev.agentrt.store.RunLedger;
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
import org.springframework.stereotype.Component;

/**
 * Answers a finished tool call in its sub-agent's conversation: the {@code tool} message carrying
 * the stored result or error, and the {@code SubAgentMessageAdded} that wakes the agent loop. The
 * message's id derives from the call, so answering twice stores one message and publishes nothing
 * new; its content is what the call's document holds, whoever recorded it.
 */
@Component
class ToolMessages {

  private final ToolCalls calls;
  private final SubAgentConversations conversations;
  private final Outbox outbox;
  private final EventCodec codec;
  private final RunLedger ledger;
  private final Clock clock = Clock.systemUTC();

  ToolMessages(
      ToolCalls calls,
      SubAgentConversations conversations,
      Outbox outbox,
      EventCodec codec,
      RunLedger ledger) {
    this.calls = calls;
    this.conversations = conversations;
    this.outbox = outbox;
    this.codec = codec;
    this.ledger = ledger;
  }

  static String messageId(String toolCallId) {
    return ToolCall.toolMessageId(toolCallId);
  }

  /**
   * Appends and publishes the tool message if the call is finished and not yet answered, as it is
   * stored now.
   */
  void answer(String toolCallId) {
    calls.find(toolCallId).ifPresent(this::answer);
  }

  /**
   * Appends and publishes the tool message of the call as given (just recorded, or just taken back
   * by the sweeper), if it is finished and not yet answered. The call carries its sub-agent's ids,
   * so neither it nor the sub-agent is read again, and the place its result expects ({@link
   * ToolCall#resultAfter}), taken in the bulk write while no other message came first.
   */
  void answer(ToolCall call) {
    if (!ToolCalls.finished(call) || call.lease() == null) {
      return;
    }
    SubAgentIds subAgent = SubAgentIds.of(call);
    // Millisecond precision, as MongoDB stores it: the event's time is the message's createdAt.
    Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
    String messageId = messageId(call.id());
    String content = call.status() == ToolCallStatus.success ? call.result() : call.error();
    // Stored without the result, which the message holds once already; sent carrying it.
    SubAgentMessageAdded added =
        SubAgentConversations.added(subAgent, messageId, SubAgentMessage.TOOL, now);
    NewMessage toolMessage =
        new NewMessage(
            messageId,
            SubAgentMessage.TOOL,
            content,
            List.of(),
            call.modelCallId(),
            List.of(OutboxEntry.of(added, codec)));
    SubAgentMessage message =
        call.resultAfter() == null
            ? conversations.append(subAgent, toolMessage, now)
            : conversations.append(subAgent, toolMessage, call.resultAfter(), now);
    OutboxEntry carrying =
        OutboxEntry.of(
            SubAgentConversations.addedCarrying(
                subAgent, messageId, SubAgentMessage.TOOL, content, call.modelCallId(), now),
            codec);
    // The result's run event is recorded by now: the loop's next step goes after it.
    outbox.publishOrLeaveToRelay(
        Collections.SUB_AGENT_MESSAGES,
        message.id(),
        message.outbox().stream()
            .map(entry -> entry.eventId().equals(carrying.eventId()) ? carrying : entry)
            .toList(),
        ledger.positionHeader(call.chatId()));
    calls.answered(call.id());
  }
}
