package dev.agentrt.agentloop;

import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** A message added to a sub-agent's conversation wakes its loop. */
@Component
class SubAgentMessageListener {

  private final IncomingEvents events;
  private final AgentLoop loop;

  SubAgentMessageListener(IncomingEvents events, AgentLoop loop) {
    this.events = events;
    this.loop = loop;
  }

  @KafkaListener(topics = Topics.SUB_AGENT_MESSAGES)
  void on(ConsumerRecord<String, byte[]> record) {
    if (events.decode(record) instanceof SubAgentMessageAdded added) {
      loop.wake(added.subAgentId());
    }
  }
}
