package dev.agentrt.orchestrator.decision;

import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxPublishException;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.MongoTemplate;

/** Decisions run on virtual threads, one per chat being decided: thousands cost little. */
@Configuration
@EnableConfigurationProperties(OrchestratorProperties.class)
class DecisionConfiguration {

  private static final Logger log = LoggerFactory.getLogger(DecisionConfiguration.class);

  @Bean
  ChatDecisions chatDecisions(
      MongoTemplate mongo,
      Orchestrator orchestrator,
      Outbox outbox,
      OrchestratorProperties properties) {
    return new ChatDecisions(
        mongo,
        orchestrator,
        written -> {
          try {
            outbox.publish(written.collection(), written.documentId(), written.outbox());
          } catch (OutboxPublishException e) {
            log.warn("{}; the relay will publish it", e.getMessage());
          }
        },
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("decision-", 0).factory()),
        properties);
  }
}
