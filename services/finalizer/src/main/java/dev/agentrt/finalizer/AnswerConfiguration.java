package dev.agentrt.finalizer;

import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.Collections;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.RunLedger;
import java.util.concurrent.Executors;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.MongoTemplate;

/** Answers are written on virtual threads, one per answer being written: thousands cost little. */
@Configuration
@EnableConfigurationProperties(FinalizerProperties.class)
class AnswerConfiguration {

  @Bean
  PendingAnswers pendingAnswers(
      MongoTemplate mongo,
      FinalAnswers answers,
      DelegationResults delegations,
      Outbox outbox,
      RunLedger ledger,
      LeaseProperties leases) {
    return new PendingAnswers(
        mongo,
        answers,
        delegations::deliver,
        answer -> {
          ledger.message(answer);
          outbox.publishOrLeaveToRelay(Collections.CHAT_MESSAGES, answer.id(), answer.outbox());
        },
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("final-answer-", 0).factory()),
        leases);
  }
}
