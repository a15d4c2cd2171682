package dev.agentrt.toolrunner.calls;

import dev.agentrt.events.InvalidEventException;
import dev.agentrt.events.TaskCancelled;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * A cancelled task's running tools stop at once instead of running on to their end, their result
 * dropped. Any instance may run the task's calls, so every instance hears every cancellation: each
 * reads the topic in a consumer group of its own (named after its holder id), from the newest
 * record, as it holds no call from before it started.
 *
 * <p>Nothing is dead-lettered from here: a record that is not an event is dead-lettered by the
 * topic's service-wide consumers, and a dead letter of a group that ends with its instance could
 * never be replayed to it. A cancellation that fails here lets the tools run to their end.
 */
@Component
class TaskCancelledListener {

  private static final Logger log = LoggerFactory.getLogger(TaskCancelledListener.class);

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
    try {
      if (events.decode(record) instanceof TaskCancelled cancelled) {
        runner.cancel(cancelled.taskId());
      }
    } catch (InvalidEventException notAnEvent) {
      log.debug("not an event, left to the service-wide consumers: {}", notAnEvent.getMessage());
    } catch (RuntimeException e) {
      log.warn(
          "could not stop the tools of a cancelled task; they run to their end: {}", e.toString());
    }
  }
}
