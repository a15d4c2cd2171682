package dev.agentrt.finalizer;

import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.LaterUpdates;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.Plans;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.TaskCancellation;
import java.util.concurrent.Executors;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Answers are written on virtual threads, one per answer being written: thousands cost little. A
 * task's outcome goes to its caller when it is a child task, to its plan when it is a plan's node,
 * to the fallback agent when it is a failure to re-route ({@link Reroutes}), else to the chat as an
 * answer. The order matters: child tasks and plan nodes are never re-routed.
 */
@Configuration
@EnableConfigurationProperties(FinalizerProperties.class)
class AnswerConfiguration {

  @Bean
  PendingAnswers pendingAnswers(
      MongoTemplate mongo,
      FinalAnswers answers,
      DelegationResults delegations,
      PlanProgress plans,
      Reroutes reroutes,
      Outbox outbox,
      LeaseProperties leases,
      LaterUpdates later) {
    return new PendingAnswers(
        mongo,
        answers,
        (outcome, task) ->
            delegations.deliver(outcome, task)
                || plans.advance(outcome, task)
                || reroutes.reroute(outcome),
        answer -> publish(answer, outbox),
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("final-answer-", 0).factory()),
        leases,
        later);
  }

  @Bean
  TaskCancellation taskCancellation(
      MongoTemplate mongo, Outbox outbox, EventCodec codec, RunLedger ledger) {
    return new TaskCancellation(mongo, outbox, codec, ledger);
  }

  @Bean
  Plans plans(
      MongoTemplate mongo, BulkWrites writes, Outbox outbox, EventCodec codec, RunLedger ledger) {
    return new Plans(mongo, writes, outbox, codec, ledger);
  }

  @Bean
  PlanProgress planProgress(
      MongoTemplate mongo,
      Plans plans,
      FinalAnswers answers,
      Outbox outbox,
      MissingAnswerProperties missing,
      LeaseProperties leases) {
    return new PlanProgress(
        mongo,
        plans,
        answers,
        answer -> publish(answer, outbox),
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("plan-answer-", 0).factory()),
        missing.grace(),
        leases);
  }

  private static void publish(ChatMessage answer, Outbox outbox) {
    outbox.publishOrLeaveToRelay(Collections.CHAT_MESSAGES, answer.id(), answer.outbox());
  }
}
