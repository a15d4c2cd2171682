package dev.agentrt.agentinit;

import dev.agentrt.events.Event;
import dev.agentrt.events.TaskCancelled;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import java.time.Clock;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Starts new tasks and stops the sub-agents of cancelled ones; other task events are not this
 * service's business. The cancellation stops the sub-agent itself; {@code TaskCancelled}, written
 * with the task's status, makes sure of it when the cancellation died between its writes.
 */
@Component
class TaskListener {

  private final IncomingEvents events;
  private final SubAgentStarter starter;
  private final CancelledSubAgents cancelled;
  private final Clock clock = Clock.systemUTC();

  TaskListener(IncomingEvents events, SubAgentStarter starter, CancelledSubAgents cancelled) {
    this.events = events;
    this.starter = starter;
    this.cancelled = cancelled;
  }

  @KafkaListener(topics = Topics.TASKS)
  void on(ConsumerRecord<String, byte[]> record) {
    Event event = events.decode(record);
    switch (event) {
      case TaskCreated created -> starter.start(created);
      case TaskCancelled cancellation -> cancelled.stop(cancellation.taskId(), clock.instant());
      default -> {}
    }
  }
}
