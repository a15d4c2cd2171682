package dev.agentrt.agentloop;

import dev.agentrt.events.EventType;
import dev.agentrt.events.InvalidEventException;
import dev.agentrt.events.TaskCancelled;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.platform.messaging.SelectiveConsumer;
import dev.agentrt.store.Leases;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.cloud.stream.config.BindingServiceProperties;
import org.springframework.messaging.Message;
import org.springframework.stereotype.Component;

/**
 * A cancelled task's turn stops at once: its model call is abandoned instead of running on until
 * the next renewal of the turn's lease finds the sub-agent cancelled. Any instance may run the
 * turn, so every instance hears every cancellation: each reads the topic in a consumer group of its
 * own (named after its holder id), from the newest record, as it holds no turn from before it
 * started. Bound to {@code agentrt.tasks} as {@code turnCancellations-in-0} (application.yml:
 * concurrency 1, start offset latest, no dead letters); its group is set here, as it holds the
 * holder id.
 *
 * <p>Nothing is dead-lettered from here: a record that is not an event is dead-lettered by the
 * topic's service-wide consumers, and a dead letter of a group that ends with its instance could
 * never be replayed to it. A cancellation that fails here is still seen at the turn's next renewal,
 * which finds its sub-agent cancelled.
 */
@Component("turnCancellations")
class TaskCancelledListener implements SelectiveConsumer {

  static final String BINDING = "turnCancellations-in-0";

  private static final Logger log = LoggerFactory.getLogger(TaskCancelledListener.class);

  private final IncomingEvents events;
  private final Leases turns;

  TaskCancelledListener(
      IncomingEvents events,
      Leases turns,
      BindingServiceProperties bindings,
      @Value("${spring.application.name}") String service) {
    this.events = events;
    this.turns = turns;
    bindings.getBindingProperties(BINDING).setGroup(service + "-cancellations-" + turns.holder());
  }

  @Override
  public Set<EventType> handles() {
    return Set.of(EventType.TASK_CANCELLED);
  }

  @Override
  public void accept(Message<byte[]> message) {
    try {
      if (events.decode(message) instanceof TaskCancelled cancelled
          && cancelled.subAgentId() != null
          && turns.interrupt(cancelled.subAgentId())) {
        log.info(
            "turn of sub-agent {} interrupted: its task was cancelled", cancelled.subAgentId());
      }
    } catch (InvalidEventException notAnEvent) {
      log.debug("not an event, left to the service-wide consumers: {}", notAnEvent.getMessage());
    } catch (RuntimeException e) {
      log.warn("could not stop the turn of a cancelled task; its renewal will: {}", e.toString());
    }
  }
}
