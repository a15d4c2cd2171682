package dev.agentrt.orchestrator.decision;

import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.store.ChatMessage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** A person's stored message triggers the orchestrator's decision. */
@Component
class UserMessageListener {

  private final IncomingEvents events;
  private final TaskStarter taskStarter;

  UserMessageListener(IncomingEvents events, TaskStarter taskStarter) {
    this.events = events;
    this.taskStarter = taskStarter;
  }

  @KafkaListener(topics = Topics.CHAT_MESSAGES)
  void on(ConsumerRecord<String, byte[]> record) {
    if (events.decode(record) instanceof ChatMessageAdded added
        && ChatMessage.USER.equals(added.role())) {
      taskStarter.startFor(added);
    }
  }
}
