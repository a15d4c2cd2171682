package dev.agentrt.notifier;

import dev.agentrt.events.EventType;
import dev.agentrt.events.TaskWaiting;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.platform.messaging.SelectiveConsumer;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.RunLedger;
import java.util.Set;
import org.springframework.messaging.Message;
import org.springframework.stereotype.Component;

/**
 * A task waiting for the person gets its question in the chat; other task events never reach it.
 * Bound to {@code agentrt.tasks} as {@code taskWaiting-in-0} (application.yml).
 */
@Component("taskWaiting")
class TaskWaitingListener implements SelectiveConsumer {

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

  @Override
  public Set<EventType> handles() {
    return Set.of(EventType.TASK_WAITING);
  }

  @Override
  public void accept(Message<byte[]> message) {
    if (events.decode(message) instanceof TaskWaiting waiting) {
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
