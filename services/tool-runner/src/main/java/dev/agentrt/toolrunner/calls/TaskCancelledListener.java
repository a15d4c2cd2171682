package dev.agentrt.toolrunner.calls;

import dev.agentrt.events.TaskCancelled;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * A cancelled task's running tools stop at once instead of running on to their end, their result
 * dropped. Any instance may run the task's calls, so every instance hears every cancellation: each
 * reads the topic in a consumer group of its own (named after its holder id), from the newest
 * record, as it holds no call from before it started.
 */
@Component
class TaskCancelledListener {

  private final IncomingEvents events;
  private final ToolCallRunner runner;

  TaskCancelledListener(IncomingEvents events, ToolCallRunner runner) {
    this.events = events;
    this.runner = runner;
  }

  @KafkaListener(
      topics = Topics.TASKS,
      groupId = "${spring.application.name}-cancellations-#{@toolCallLeases.holder()}",
      concurrency = "1",
      properties = "auto.offset.reset=latest")
  void on(ConsumerRecord<String, byte[]> record) {
    if (events.decode(record) instanceof TaskCancelled cancelled) {
      runner.cancel(cancelled.taskId());
    }
  }
}
