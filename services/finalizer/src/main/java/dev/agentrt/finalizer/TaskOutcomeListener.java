package dev.agentrt.finalizer;

import dev.agentrt.events.Event;
import dev.agentrt.events.TaskCancelled;
import dev.agentrt.events.TaskCompleted;
import dev.agentrt.events.TaskFailed;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * A task that completed, failed or was cancelled gets its answer in the chat: its outcome goes to
 * {@link PendingAnswers}, which records it and writes the answer on a thread of its own, so the
 * consumer moves on at once, whatever the model's pace. Other task events are not this service's
 * business.
 */
@Component
class TaskOutcomeListener {

  private final IncomingEvents events;
  private final PendingAnswers pending;

  TaskOutcomeListener(IncomingEvents events, PendingAnswers pending) {
    this.events = events;
    this.pending = pending;
  }

  @KafkaListener(topics = Topics.TASKS)
  void on(ConsumerRecord<String, byte[]> record) {
    Event event = events.decode(record);
    TaskOutcome outcome =
        switch (event) {
          case TaskCompleted completed -> TaskOutcome.of(completed);
          case TaskFailed failed -> TaskOutcome.of(failed);
          case TaskCancelled cancelled -> TaskOutcome.of(cancelled);
          default -> null;
        };
    if (outcome != null) {
      pending.offer(outcome);
    }
  }
}
