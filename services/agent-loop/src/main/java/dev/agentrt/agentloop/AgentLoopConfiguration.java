package dev.agentrt.agentloop;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentConversations;
import java.util.concurrent.Executors;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.MongoTemplate;

/** Turns run on virtual threads: thousands of slow model calls at once cost little. */
@Configuration
@EnableConfigurationProperties({AgentLoopProperties.class, RunLimits.class})
class AgentLoopConfiguration {

  @Bean(destroyMethod = "")
  AgentLoop agentLoop(
      MongoTemplate mongo,
      SubAgentConversations conversations,
      AgentCatalog agents,
      ModelCaller model,
      OutcomeRecorder recorder,
      OutputSchemaCheck outputs,
      AgentLoopProperties properties,
      RunLimits limits,
      RunLedger ledger) {
    return new AgentLoop(
        mongo,
        conversations,
        agents,
        model,
        recorder,
        outputs,
        properties,
        limits,
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("turn-", 0).factory()),
        ledger);
  }
}
