package dev.agentrt.orchestrator.chat;

import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.TaskCancellation;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.MongoTemplate;

/** The cancel API's cancellation, shared with the finalizer (libs/store). */
@Configuration(proxyBeanMethods = false)
class CancellationConfiguration {

  @Bean
  TaskCancellation taskCancellation(
      MongoTemplate mongo, Outbox outbox, EventCodec codec, RunLedger ledger) {
    return new TaskCancellation(mongo, outbox, codec, ledger);
  }
}
