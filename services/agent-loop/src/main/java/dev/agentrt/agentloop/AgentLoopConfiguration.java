package dev.agentrt.agentloop;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.store.ConfigVersion;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.Leases;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StepStarts;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentStatus;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;

/**
 * Turns run on virtual threads: thousands of slow model calls at once cost little. Each is held by
 * a lease on its sub-agent's {@code turn}, for {@code agentrt.leases.duration} unless renewed.
 */
@Configuration
@EnableConfigurationProperties({AgentLoopProperties.class, RunLimits.class})
class AgentLoopConfiguration {

  @Bean
  Leases turnLeases(MongoTemplate mongo, BulkWrites writes, LeaseProperties leases) {
    return turnLeases(mongo, writes, leases.duration());
  }

  /**
   * The holds of turns: on the sub-agent's {@code turn}, wanted while the sub-agent is active, so
   * that the turn of a sub-agent cancelled or failed meanwhile is lost at the next renewal and its
   * worker interrupted.
   */
  static Leases turnLeases(MongoTemplate mongo, @Nullable BulkWrites writes, Duration duration) {
    return new Leases(
        mongo,
        writes,
        SubAgent.class,
        "turn",
        duration,
        Criteria.where("status").is(SubAgentStatus.active));
  }

  /** The turns' {@code step_start}s: with their ends when the model answers within a moment. */
  @Bean(destroyMethod = "close")
  StepStarts turnStarts(RunLedger ledger, AgentLoopProperties properties) {
    return new StepStarts(ledger, properties.startShownAfter(), "turn-start-timer");
  }

  @Bean(destroyMethod = "stop")
  AgentLoop agentLoop(
      MongoTemplate mongo,
      SubAgentConversations conversations,
      AgentCatalog agents,
      ModelCaller model,
      OutcomeRecorder recorder,
      OutputSchemaCheck outputs,
      RunLimits limits,
      Leases turnLeases,
      RunLedger ledger,
      StepStarts turnStarts,
      ObservationRegistry observations,
      MeterRegistry meters,
      ConfigVersion config,
      AgentLoopProperties properties) {
    return new AgentLoop(
        mongo,
        conversations,
        agents,
        model,
        recorder,
        outputs,
        limits,
        turnLeases,
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("turn-", 0).factory()),
        properties.eventWait(),
        properties.resultWait(),
        ledger,
        turnStarts,
        observations,
        meters,
        config);
  }
}
