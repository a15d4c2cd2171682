package dev.agentrt.store;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * The shared collections' indexes, the conversation store every service appends to, the counter of
 * model turns' tokens, and the chats' run-event ledger.
 */
@AutoConfiguration
public class StoreAutoConfiguration {

  @Bean
  StoreIndexes storeIndexes(MongoTemplate mongo) {
    return new StoreIndexes(mongo);
  }

  @Bean
  SubAgentConversations subAgentConversations(MongoTemplate mongo) {
    return new SubAgentConversations(mongo);
  }

  @Bean
  RunLedger runLedger(MongoTemplate mongo) {
    return new RunLedger(mongo);
  }

  @Bean
  UsageCounter usageCounter(MongoTemplate mongo) {
    return new UsageCounter(mongo);
  }
}
