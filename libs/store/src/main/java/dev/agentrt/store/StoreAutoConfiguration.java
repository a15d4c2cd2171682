package dev.agentrt.store;

import dev.agentrt.platform.BulkWrites;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * The shared collections' indexes, the conversation store every service appends to, the counter of
 * model turns' tokens, the chats' run-event ledger, and the sweeper of the work a service holds
 * with leases.
 */
@AutoConfiguration
@EnableConfigurationProperties(LeaseProperties.class)
public class StoreAutoConfiguration {

  @Bean
  LeaseSweeper leaseSweeper(ObjectProvider<LeasedWork> work, LeaseProperties properties) {
    return new LeaseSweeper(work.orderedStream().toList(), properties);
  }

  @Bean
  StoreIndexes storeIndexes(MongoTemplate mongo) {
    return new StoreIndexes(mongo);
  }

  @Bean
  SubAgentConversations subAgentConversations(MongoTemplate mongo, BulkWrites writes) {
    return new SubAgentConversations(mongo, writes);
  }

  @Bean
  RunLedger runLedger(
      MongoTemplate mongo,
      BulkWrites writes,
      ObjectProvider<MeterRegistry> meters,
      ObjectProvider<ConfigVersion> config) {
    return new RunLedger(
        mongo, writes, meters.getIfAvailable(SimpleMeterRegistry::new), config.getIfAvailable());
  }

  @Bean
  UsageCounter usageCounter(MongoTemplate mongo, BulkWrites writes) {
    return new UsageCounter(mongo, writes);
  }
}
