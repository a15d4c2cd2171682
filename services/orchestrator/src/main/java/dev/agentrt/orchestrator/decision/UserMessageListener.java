package dev.agentrt.orchestrator.decision;

import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.store.ChatMessage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * A person's stored message hands its chat to {@link ChatDecisions}, which decides it on a thread
 * of its own: the consumer moves on at once, whatever the model's pace.
 */
@Component
class UserMessageListener {

  private final IncomingEvents events;
  private final ChatDecisions decisions;

  UserMessageListener(IncomingEvents events, ChatDecisions decisions) {
    this.events = events;
    this.decisions = decisions;
  }

  @KafkaListener(topics = Topics.CHAT_MESSAGES)
  void on(ConsumerRecord<String, byte[]> record) {
    if (events.decode(record) instanceof ChatMessageAdded added
        && ChatMessage.USER.equals(added.role())) {
      decisions.offer(added.chatId());
    }
  }
}
