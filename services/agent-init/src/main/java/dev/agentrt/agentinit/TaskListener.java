package dev.agentrt.agentinit;

import dev.agentrt.events.Event;
import dev.agentrt.events.EventType;
import dev.agentrt.events.TaskCancelled;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.platform.messaging.SelectiveConsumer;
import dev.agentrt.store.RunLedger;
import java.time.Clock;
import java.util.Set;
import org.springframework.messaging.Message;
import org.springframework.stereotype.Component;

/**
 * Starts new tasks and stops the sub-agents of cancelled ones; other task events are not this
 * service's business. The cancellation stops the sub-agent itself; {@code TaskCancelled}, written
 * with the task's status, makes sure of it when the cancellation died between its writes. Bound to
 * {@code agentrt.tasks} as {@code tasks-in-0} (application.yml).
 */
@Component("tasks")
class TaskListener implements SelectiveConsumer {

  private final IncomingEvents events;
  private final SubAgentStarter starter;
  private final CancelledSubAgents cancelled;
  private final RunLedger ledger;
  private final Clock clock = Clock.systemUTC();

  TaskListener(
      IncomingEvents events,
      SubAgentStarter starter,
      CancelledSubAgents cancelled,
      RunLedger ledger) {
    this.events = events;
    this.starter = starter;
    this.cancelled = cancelled;
    this.ledger = ledger;
  }

  @Override
  public Set<EventType> handles() {
    return Set.of(EventType.TASK_CREATED, EventType.TASK_CANCELLED);
  }

  @Override
  public void accept(Message<byte[]> message) {
    Event event = events.decode(message);
    switch (event) {
      case TaskCreated created -> {
        ledger.learn(created.chatId(), message.getHeaders().get(RunLedger.POSITION_HEADER));
        starter.start(created);
      }
      case TaskCancelled cancellation -> cancelled.stop(cancellation.taskId(), clock.instant());
      default -> {}
    }
  }
}
