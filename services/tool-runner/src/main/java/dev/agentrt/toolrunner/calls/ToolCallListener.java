package dev.agentrt.toolrunner.calls;

import dev.agentrt.events.ToolCallRequested;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.IncomingEvents;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * A requested tool call is claimed here and run in the background; the listener returns at once.
 */
@Component
class ToolCallListener {

  private final IncomingEvents events;
  private final ToolCallRunner runner;

  ToolCallListener(IncomingEvents events, ToolCallRunner runner) {
    this.events = events;
    this.runner = runner;
  }

  @KafkaListener(topics = Topics.TOOL_CALLS)
  void on(ConsumerRecord<String, byte[]> record) {
    if (events.decode(record) instanceof ToolCallRequested requested) {
      runner.onRequested(requested);
    }
  }
}
