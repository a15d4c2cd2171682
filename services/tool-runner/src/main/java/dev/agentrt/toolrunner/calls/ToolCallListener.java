package dev.agentrt.toolrunner.calls;

import dev.agentrt.events.ToolCallRequested;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.store.RunLedger;
import java.util.function.Consumer;
import org.springframework.messaging.Message;
import org.springframework.stereotype.Component;

/**
 * A requested tool call is claimed and run in the background; the listener returns at once, without
 * waiting for the claim ({@link ToolCallRunner#offer}), so the claims of the records of a poll go
 * out together. Bound to {@code agentrt.tool-calls} as {@code toolCallRequests-in-0}
 * (application.yml).
 */
@Component("toolCallRequests")
class ToolCallListener implements Consumer<Message<byte[]>> {

  private final IncomingEvents events;
  private final ToolCallRunner runner;
  private final RunLedger ledger;

  ToolCallListener(IncomingEvents events, ToolCallRunner runner, RunLedger ledger) {
    this.events = events;
    this.runner = runner;
    this.ledger = ledger;
  }

  @Override
  public void accept(Message<byte[]> message) {
    if (events.decode(message) instanceof ToolCallRequested requested) {
      ledger.learn(requested.chatId(), message.getHeaders().get(RunLedger.POSITION_HEADER));
      runner.offer(requested);
    }
  }
}
