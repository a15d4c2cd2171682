package dev.agentrt.orchestrator.testing;

import dev.agentrt.events.EventCodec;
import dev.agentrt.orchestrator.chat.ToolCallApprovals;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Leases;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.ToolCall;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.data.mongodb.core.MongoTemplate;

/** Decisions on calls that await approval, with the broker away: events stay in the outboxes. */
public final class Approvals {

  private Approvals() {}

  public static ToolCallApprovals withoutBroker(MongoTemplate mongo) {
    EventPublisher noBroker =
        new EventPublisher(null, "test") {
          @Override
          public CompletableFuture<?> send(OutboxEntry entry, Map<String, String> headers) {
            return CompletableFuture.failedFuture(new IllegalStateException("no broker"));
          }
        };
    return new ToolCallApprovals(
        mongo,
        new SubAgentConversations(mongo),
        new Outbox(noBroker, mongo),
        new EventCodec(),
        new RunLedger(mongo),
        new Leases(mongo, ToolCall.class, ToolCall.LEASE, Duration.ofSeconds(30), null));
  }
}
