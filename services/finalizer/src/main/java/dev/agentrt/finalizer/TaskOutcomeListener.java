package dev.agentrt.finalizer;

import dev.agentrt.events.Event;
import dev.agentrt.events.TaskCancelled;
import dev.agentrt.events.TaskCompleted;
import dev.agentrt.events.TaskFailed;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxPublishException;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.RunLedger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * A task that completed, failed or was cancelled gets its answer in the chat. The answer is written
 * on the consumer's thread, bounded by {@code agentrt.finalizer.answer-deadline}; other task events
 * are not this service's business.
 */
@Component
@EnableConfigurationProperties(FinalizerProperties.class)
class TaskOutcomeListener {

  private static final Logger log = LoggerFactory.getLogger(TaskOutcomeListener.class);

  private final IncomingEvents events;
  private final FinalAnswers answers;
  private final Outbox outbox;
  private final RunLedger ledger;

  TaskOutcomeListener(
      IncomingEvents events, FinalAnswers answers, Outbox outbox, RunLedger ledger) {
    this.events = events;
    this.answers = answers;
    this.outbox = outbox;
    this.ledger = ledger;
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
    if (outcome == null) {
      return;
    }
    ChatMessage answer = answers.write(outcome);
    ledger.message(answer);
    try {
      outbox.publish(Collections.CHAT_MESSAGES, answer.id(), answer.outbox());
    } catch (OutboxPublishException e) {
      log.warn("{}; the relay will publish it", e.getMessage());
    }
  }
}
