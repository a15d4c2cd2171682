package dev.agentrt.orchestrator.decision;

import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.store.ChatMessage;
import java.util.function.Consumer;
import org.springframework.messaging.Message;
import org.springframework.stereotype.Component;

/**
 * A person's stored message hands its chat to {@link ChatDecisions}, which decides it on a thread
 * of its own: the consumer moves on at once, whatever the model's pace. Bound to {@code
 * agentrt.chat-messages} as {@code userMessages-in-0} (application.yml).
 */
@Component("userMessages")
class UserMessageListener implements Consumer<Message<byte[]>> {

  private final IncomingEvents events;
  private final ChatDecisions decisions;

  UserMessageListener(IncomingEvents events, ChatDecisions decisions) {
    this.events = events;
    this.decisions = decisions;
  }

  @Override
  public void accept(Message<byte[]> message) {
    if (events.decode(message) instanceof ChatMessageAdded added
        && ChatMessage.USER.equals(added.role())) {
      decisions.offer(added.chatId());
    }
  }
}
