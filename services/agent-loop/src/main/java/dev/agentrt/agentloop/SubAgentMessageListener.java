package dev.agentrt.agentloop;

import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.store.RunLedger;
import java.util.function.Consumer;
import org.springframework.messaging.Message;
import org.springframework.stereotype.Component;

/**
 * A message added to a sub-agent's conversation wakes its loop. Bound to {@code
 * agentrt.sub-agent-messages} as {@code subAgentMessages-in-0} (application.yml).
 */
@Component("subAgentMessages")
class SubAgentMessageListener implements Consumer<Message<byte[]>> {

  private final IncomingEvents events;
  private final AgentLoop loop;
  private final RunLedger ledger;

  SubAgentMessageListener(IncomingEvents events, AgentLoop loop, RunLedger ledger) {
    this.events = events;
    this.loop = loop;
    this.ledger = ledger;
  }

  @Override
  public void accept(Message<byte[]> message) {
    if (events.decode(message) instanceof SubAgentMessageAdded added) {
      ledger.learn(added.chatId(), message.getHeaders().get(RunLedger.POSITION_HEADER));
      loop.wake(added);
    }
  }
}
