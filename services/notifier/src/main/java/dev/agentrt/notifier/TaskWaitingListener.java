package dev.agentrt.notifier;

import dev.agentrt.events.TaskWaiting;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.RunLedger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** A task waiting for the person gets its question in the chat; other task events are ignored. */
@Component
class TaskWaitingListener {

  private final IncomingEvents events;
  private final Questions questions;
  private final Outbox outbox;
  private final RunLedger ledger;

  TaskWaitingListener(IncomingEvents events, Questions questions, Outbox outbox, RunLedger ledger) {
    this.events = events;
    this.questions = questions;
    this.outbox = outbox;
    this.ledger = ledger;
  }

  @KafkaListener(topics = Topics.TASKS)
  void on(ConsumerRecord<String, byte[]> record) {
    if (events.decode(record) instanceof TaskWaiting waiting) {
      ask(waiting);
    }
  }

  /** Posts the question (once: its id derives from the event) and publishes it. */
  void ask(TaskWaiting waiting) {
    ChatMessage question = questions.post(waiting);
    ledger.message(question);
    outbox.publishOrLeaveToRelay(Collections.CHAT_MESSAGES, question.id(), question.outbox());
  }
}
