package dev.agentrt.orchestrator.decision;

import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxPublishException;
import dev.agentrt.store.ChatMessage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * A person's stored message triggers the orchestrator's decision, on the consumer's thread: the
 * messages of one chat share a partition and are decided in order, each seeing what the one before
 * it led to. A decision is bounded ({@code agentrt.orchestrator.decision-deadline}), one record is
 * polled at a time, and several consumers share the partitions, so a slow model holds up only the
 * chats of its partition, never past the poll interval.
 */
@Component
@EnableConfigurationProperties(OrchestratorProperties.class)
class UserMessageListener {

  private static final Logger log = LoggerFactory.getLogger(UserMessageListener.class);

  private final IncomingEvents events;
  private final Orchestrator orchestrator;
  private final Outbox outbox;

  UserMessageListener(IncomingEvents events, Orchestrator orchestrator, Outbox outbox) {
    this.events = events;
    this.orchestrator = orchestrator;
    this.outbox = outbox;
  }

  @KafkaListener(topics = Topics.CHAT_MESSAGES)
  void on(ConsumerRecord<String, byte[]> record) {
    if (events.decode(record) instanceof ChatMessageAdded added
        && ChatMessage.USER.equals(added.role())) {
      Publication written = orchestrator.handle(added);
      try {
        outbox.publish(written.collection(), written.documentId(), written.outbox());
      } catch (OutboxPublishException e) {
        log.warn("{}; the relay will publish it", e.getMessage());
      }
    }
  }
}
