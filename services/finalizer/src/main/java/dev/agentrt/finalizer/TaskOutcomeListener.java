package dev.agentrt.finalizer;

import dev.agentrt.events.Event;
import dev.agentrt.events.EventType;
import dev.agentrt.events.TaskCancelled;
import dev.agentrt.events.TaskCompleted;
import dev.agentrt.events.TaskFailed;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.platform.messaging.SelectiveConsumer;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.TaskCancellation;
import java.util.Set;
import org.springframework.messaging.Message;
import org.springframework.stereotype.Component;

/**
 * A task that completed, failed or was cancelled gets its answer in the chat: its outcome goes to
 * {@link PendingAnswers}, which records it and writes the answer on a thread of its own, so the
 * consumer moves on at once, whatever the model's pace. A task that failed (a limit, a model error)
 * first has its running descendants cancelled as the cancel API cancels them ({@link
 * TaskCancellation#cancelChildrenOf}), so none calls the model for a dead tree: one read for a task
 * without children, and this event is redelivered until it is done. Other task events are not this
 * service's business. Bound to {@code agentrt.tasks} as {@code taskOutcomes-in-0}
 * (application.yml).
 */
@Component("taskOutcomes")
class TaskOutcomeListener implements SelectiveConsumer {

  private final IncomingEvents events;
  private final PendingAnswers pending;
  private final TaskCancellation cancellation;
  private final RunLedger ledger;

  TaskOutcomeListener(
      IncomingEvents events,
      PendingAnswers pending,
      TaskCancellation cancellation,
      RunLedger ledger) {
    this.events = events;
    this.pending = pending;
    this.cancellation = cancellation;
    this.ledger = ledger;
  }

  @Override
  public Set<EventType> handles() {
    return Set.of(EventType.TASK_COMPLETED, EventType.TASK_FAILED, EventType.TASK_CANCELLED);
  }

  @Override
  public void accept(Message<byte[]> message) {
    Event event = events.decode(message);
    if (event instanceof TaskCompleted completed) {
      // where the run's end stands in the chat's ledger: the answer goes after it without a read
      ledger.learn(completed.chatId(), message.getHeaders().get(RunLedger.POSITION_HEADER));
    }
    handle(event);
  }

  void handle(Event event) {
    TaskOutcome outcome =
        switch (event) {
          case TaskCompleted completed -> TaskOutcome.of(completed);
          case TaskFailed failed -> TaskOutcome.of(failed);
          case TaskCancelled cancelled -> TaskOutcome.of(cancelled);
          default -> null;
        };
    if (event instanceof TaskFailed failed) {
      cancellation.cancelChildrenOf(failed.taskId());
    }
    if (outcome != null) {
      pending.offer(outcome);
    }
  }
}
