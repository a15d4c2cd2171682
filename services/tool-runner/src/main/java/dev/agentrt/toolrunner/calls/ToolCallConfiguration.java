package dev.agentrt.toolrunner.calls;

import dev.agentrt.platform.BulkWrites;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.Leases;
import dev.agentrt.store.ToolCall;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Tool calls are held with a lease on the call's {@code lease}, for {@code agentrt.leases.duration}
 * unless renewed: the service's {@link dev.agentrt.store.LeaseSweeper} renews it while the tool
 * runs, so a tool may run longer than the lease, and a dead runner's call is taken up by another
 * within the lease and one sweep.
 */
@Configuration(proxyBeanMethods = false)
class ToolCallConfiguration {

  @Bean
  Leases toolCallLeases(MongoTemplate mongo, BulkWrites writes, LeaseProperties leases) {
    return toolCallLeases(mongo, writes, leases.duration());
  }

  /**
   * The holds of tool calls, wanted whatever the call's status: the hold covers the call from its
   * claim until its tool message is appended, finished or not. Claims go out with the calls' other
   * writes ({@link Leases#queueTakeAndGet}).
   */
  static Leases toolCallLeases(MongoTemplate mongo, BulkWrites writes, Duration duration) {
    return new Leases(mongo, writes, ToolCall.class, ToolCall.LEASE, duration, null);
  }
}
