package dev.agentrt.orchestrator.chat;

import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.Leases;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.ToolCall;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * A rejection holds the call's {@code lease} as tool-runner does, for {@code
 * agentrt.leases.duration}, until its tool message is appended.
 */
@Configuration(proxyBeanMethods = false)
class FeedbackConfiguration {

  @Bean
  ToolCallApprovals toolCallApprovals(
      MongoTemplate mongo,
      SubAgentConversations conversations,
      Outbox outbox,
      EventCodec codec,
      RunLedger ledger,
      LeaseProperties leases) {
    return new ToolCallApprovals(
        mongo,
        conversations,
        outbox,
        codec,
        ledger,
        new Leases(mongo, ToolCall.class, ToolCall.LEASE, leases.duration(), null));
  }
}
