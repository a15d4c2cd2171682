package dev.agentrt.platform.messaging;

import dev.agentrt.events.EventType;
import java.util.Set;
import java.util.function.Consumer;
import org.springframework.messaging.Message;

/**
 * A consumer binding's function that handles only some of the event types its topic carries: the
 * records of the others are dropped before they are read ({@link UnhandledEventTypes}), so that the
 * service spends nothing on events it would ignore.
 */
public interface SelectiveConsumer extends Consumer<Message<byte[]>> {

  /** The event types this function handles; records of other known types never reach it. */
  Set<EventType> handles();
}
