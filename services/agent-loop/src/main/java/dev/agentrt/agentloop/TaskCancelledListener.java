package dev.agentrt.agentloop;

import dev.agentrt.events.TaskCancelled;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * A cancelled task's turn stops at once: its model call is abandoned instead of running on until
 * the next renewal of the turn's lease finds the sub-agent cancelled. Any instance may run the
 * turn, so every instance hears every cancellation: each reads the topic in a consumer group of its
 * own (named after its holder id), from the newest record, as it holds no turn from before it
 * started.
 */
@Component
class TaskCancelledListener {

  private final IncomingEvents events;
  private final AgentLoop loop;

  TaskCancelledListener(IncomingEvents events, AgentLoop loop) {
    this.events = events;
    this.loop = loop;
  }

  @KafkaListener(
      topics = Topics.TASKS,
      groupId = "${spring.application.name}-cancellations-#{@turnLeases.holder()}",
      concurrency = "1",
      properties = "auto.offset.reset=latest")
  void on(ConsumerRecord<String, byte[]> record) {
    if (events.decode(record) instanceof TaskCancelled cancelled
        && cancelled.subAgentId() != null) {
      loop.interruptTurn(cancelled.subAgentId());
    }
  }
}
