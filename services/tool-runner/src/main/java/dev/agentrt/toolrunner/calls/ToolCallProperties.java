package dev.agentrt.toolrunner.calls;

import dev.agentrt.toolrunner.tools.ToolSettings;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code agentrt.tools.*}: how long a tool may run, how long a claimed call is held before another
 * worker may take it back, how long an unclaimed pending call waits before the sweeper runs it, and
 * the bounds on results, retries and calls in flight.
 *
 * @param timeout a tool running longer fails with {@code timeout}, unless overridden for it
 * @param lease how long a claim holds; longer than every timeout, so a live worker keeps its call
 * @param unclaimedAfter a pending call older than this that nobody claimed (its event was lost, or
 *     no permit was free) is run by the sweeper
 * @param overrides per tool name: {@code timeout}, {@code idempotent}
 * @param maxResultSize a longer result (UTF-8 bytes) is cut, with a marker saying so, so that it
 *     fits a MongoDB document and a model's context
 * @param maxConcurrentCalls tool calls this runner executes at once; more stay {@code pending}
 * @param retry how transient failures of idempotent tools are retried
 */
@ConfigurationProperties("agentrt.tools")
public record ToolCallProperties(
    @DefaultValue("30s") Duration timeout,
    @DefaultValue("60s") Duration lease,
    @DefaultValue("10s") Duration unclaimedAfter,
    Map<String, ToolSettings.Override> overrides,
    @DefaultValue("256KB") DataSize maxResultSize,
    @DefaultValue("64") int maxConcurrentCalls,
    @DefaultValue Retry retry) {

  /**
   * {@code agentrt.tools.retry.*}: a transient failure (timeout, connection error, a 5xx, an MCP
   * server gone) of an idempotent tool is tried again after a wait that doubles, with up to a
   * quarter more of jitter, from {@code initialBackoff} to at most {@code maxBackoff}.
   *
   * @param maxAttempts attempts in all, the first included (4: retried 3 times); 1 turns retries
   *     off
   */
  public record Retry(
      @DefaultValue("4") int maxAttempts,
      @DefaultValue("1s") Duration initialBackoff,
      @DefaultValue("10s") Duration maxBackoff) {

    public static final Retry DEFAULTS =
        new Retry(4, Duration.ofSeconds(1), Duration.ofSeconds(10));

    public Retry {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException(
            "agentrt.tools.retry.max-attempts must be at least 1, not " + maxAttempts);
      }
      if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
        throw new IllegalArgumentException(
            "agentrt.tools.retry: initial-backoff ("
                + initialBackoff
                + ") must be positive and at most max-backoff ("
                + maxBackoff
                + ")");
      }
    }
  }

  @ConstructorBinding
  public ToolCallProperties {
    overrides = overrides == null ? Map.of() : Map.copyOf(overrides);
    retry = retry == null ? Retry.DEFAULTS : retry;
    if (maxResultSize.toBytes() < 1024) {
      throw new IllegalArgumentException(
          "agentrt.tools.max-result-size must be at least 1KB, not " + maxResultSize);
    }
    if (maxConcurrentCalls < 1) {
      throw new IllegalArgumentException(
          "agentrt.tools.max-concurrent-calls must be at least 1, not " + maxConcurrentCalls);
    }
    checkLease(lease, timeout, "agentrt.tools.timeout");
    overrides.forEach(
        (tool, override) -> {
          if (override.timeout() != null) {
            checkLease(lease, override.timeout(), "the timeout of " + tool);
          }
        });
  }

  public ToolCallProperties(Duration timeout, Duration lease, Duration unclaimedAfter) {
    this(timeout, lease, unclaimedAfter, Map.of());
  }

  public ToolCallProperties(
      Duration timeout,
      Duration lease,
      Duration unclaimedAfter,
      Map<String, ToolSettings.Override> overrides) {
    this(timeout, lease, unclaimedAfter, overrides, DataSize.ofKilobytes(256), 64, Retry.DEFAULTS);
  }

  public ToolCallProperties withMaxResultSize(DataSize size) {
    return new ToolCallProperties(
        timeout, lease, unclaimedAfter, overrides, size, maxConcurrentCalls, retry);
  }

  public ToolCallProperties withMaxConcurrentCalls(int calls) {
    return new ToolCallProperties(
        timeout, lease, unclaimedAfter, overrides, maxResultSize, calls, retry);
  }

  public ToolCallProperties withRetry(Retry policy) {
    return new ToolCallProperties(
        timeout, lease, unclaimedAfter, overrides, maxResultSize, maxConcurrentCalls, policy);
  }

  public ToolSettings settings() {
    return new ToolSettings(timeout, overrides);
  }

  /** A worker still running a tool must keep its call: the lease outlasts the tool's timeout. */
  public static void checkLease(Duration lease, Duration timeout, String what) {
    if (lease.compareTo(timeout) <= 0) {
      throw new IllegalArgumentException(
          "agentrt.tools.lease ("
              + lease
              + ") must be longer than "
              + what
              + " ("
              + timeout
              + "), or a live worker loses its call to the sweeper");
    }
  }
}
