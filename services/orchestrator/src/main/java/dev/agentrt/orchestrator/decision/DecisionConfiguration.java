package dev.agentrt.orchestrator.decision;

import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.Plans;
import dev.agentrt.store.RunLedger;
import java.time.Duration;
import java.util.concurrent.Executors;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.MongoTemplate;

/** Decisions run on virtual threads, one per chat being decided: thousands cost little. */
@Configuration
@EnableConfigurationProperties({
  OrchestratorProperties.class,
  PlanProperties.class,
  RoutingProperties.class
})
class DecisionConfiguration {

  @Bean
  Plans plans(
      MongoTemplate mongo, BulkWrites writes, Outbox outbox, EventCodec codec, RunLedger ledger) {
    return new Plans(mongo, writes, outbox, codec, ledger);
  }

  @Bean
  ChatDecisions chatDecisions(
      MongoTemplate mongo,
      BulkWrites writes,
      Orchestrator orchestrator,
      Outbox outbox,
      LeaseProperties leases,
      @Value("${agentrt.orchestrator.sweep-grace:10s}") Duration sweepGrace) {
    return new ChatDecisions(
        mongo,
        writes,
        orchestrator,
        written ->
            outbox.publishOrLeaveToRelay(
                written.collection(), written.documentId(), written.outbox(), written.headers()),
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("decision-", 0).factory()),
        leases,
        sweepGrace);
  }
}
