package dev.agentrt.agentinit;

import dev.agentrt.events.TaskCreated;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** Reacts to new tasks; other task events are not this service's business. */
@Component
class TaskCreatedListener {

  private final IncomingEvents events;
  private final SubAgentStarter starter;

  TaskCreatedListener(IncomingEvents events, SubAgentStarter starter) {
    this.events = events;
    this.starter = starter;
  }

  @KafkaListener(topics = Topics.TASKS)
  void on(ConsumerRecord<String, byte[]> record) {
    if (events.decode(record) instanceof TaskCreated created) {
      starter.start(created);
    }
  }
}
