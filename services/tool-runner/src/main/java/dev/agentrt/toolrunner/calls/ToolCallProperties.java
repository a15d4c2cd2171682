package dev.agentrt.toolrunner.calls;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.tools.*}: how long a tool may run, how long a claimed call is held before another
 * worker may take it back, and how long an unclaimed pending call waits before the sweeper runs it.
 *
 * @param timeout a tool running longer fails with {@code timeout}
 * @param lease how long a claim holds; longer than {@code timeout}, so a live worker keeps its call
 * @param unclaimedAfter a pending call older than this that nobody claimed (its event was lost) is
 *     run by the sweeper
 */
@ConfigurationProperties("agentrt.tools")
public record ToolCallProperties(
    @DefaultValue("30s") Duration timeout,
    @DefaultValue("60s") Duration lease,
    @DefaultValue("10s") Duration unclaimedAfter) {

  public ToolCallProperties {
    if (lease.compareTo(timeout) <= 0) {
      throw new IllegalArgumentException(
          "agentrt.tools.lease ("
              + lease
              + ") must be longer than agentrt.tools.timeout ("
              + timeout
              + "), or a live worker loses its call to the sweeper");
    }
  }
}
