package dev.agentrt.toolrunner.calls;

import dev.agentrt.store.Collections;
import dev.agentrt.store.ToolCall;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.index.Index;
import org.springframework.stereotype.Component;

/**
 * The indexes behind the sweeper's queries (status with the lease's end, status with age);
 * idempotent.
 */
@Component
class ToolCallIndexes implements InitializingBean {

  private final MongoTemplate mongo;

  ToolCallIndexes(MongoTemplate mongo) {
    this.mongo = mongo;
  }

  @Override
  public void afterPropertiesSet() {
    mongo
        .indexOps(Collections.SUB_AGENT_TOOL_CALLS)
        .createIndex(
            new Index()
                .on("status", Sort.Direction.ASC)
                .on(ToolCall.LEASE + ".leaseUntil", Sort.Direction.ASC));
    mongo
        .indexOps(Collections.SUB_AGENT_TOOL_CALLS)
        .createIndex(
            new Index().on("status", Sort.Direction.ASC).on("createdAt", Sort.Direction.ASC));
  }
}
