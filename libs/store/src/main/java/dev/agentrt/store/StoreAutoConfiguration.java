package dev.agentrt.store;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * The shared collections' indexes, the conversation store every service appends to, and the counter
 * of model turns' tokens.
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
  UsageCounter usageCounter(MongoTemplate mongo) {
    return new UsageCounter(mongo);
  }
}
