package dev.agentrt.store;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.mongodb.core.MongoTemplate;

/** Makes sure the shared collections have their indexes in every service that uses them. */
@AutoConfiguration
public class StoreAutoConfiguration {

  @Bean
  StoreIndexes storeIndexes(MongoTemplate mongo) {
    return new StoreIndexes(mongo);
  }
}
