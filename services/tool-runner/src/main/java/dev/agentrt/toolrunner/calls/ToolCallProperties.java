package dev.agentrt.toolrunner.calls;

import dev.agentrt.toolrunner.tools.ToolSettings;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code agentrt.tools.*}: how long a tool may run, how long an unclaimed pending call waits before
 * the sweeper runs it, and the bounds on results, retries and calls in flight. (A claimed call is
 * held by a lease renewed while its tool runs: {@code agentrt.leases.*}.)
 *
 * @param timeout a tool running longer fails with {@code timeout}, unless overridden for it
 * @param unclaimedAfter a pending call older than this that nobody claimed (its event was lost, or
 *     no permit was free) is run by the sweeper
 * @param overrides per tool name: {@code timeout}, {@code idempotent}, {@code approval}
 * @param maxResultSize a longer result (UTF-8 bytes) is cut, with a marker saying so, so that it
 *     fits a MongoDB document and a model's context
 * @param maxConcurrentCalls tool calls this runner executes at once; more stay {@code pending}
 * @param retry how transient failures of idempotent tools are retried
 * @param startShownAfter how long a tool runs before its {@code tool_call_start} is recorded on its
 *     own, so a person watching sees it run; a tool that ends sooner has its start recorded with
 *     its result (one position in the chat's ledger taken for both); 0 records every start as its
 *     tool starts
 */
@ConfigurationProperties("agentrt.tools")
public record ToolCallProperties(
    @DefaultValue("30s") Duration timeout,
    @DefaultValue("10s") Duration unclaimedAfter,
    Map<String, ToolSettings.Override> overrides,
    @DefaultValue("256KB") DataSize maxResultSize,
    @DefaultValue("64") int maxConcurrentCalls,
    @DefaultValue Retry retry,
    @DefaultValue("50ms") Duration startShownAfter) {

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
    startShownAfter = startShownAfter == null ? Duration.ofMillis(50) : startShownAfter;
    if (startShownAfter.isNegative()) {
      throw new IllegalArgumentException(
          "agentrt.tools.start-shown-after must not be negative, not " + startShownAfter);
    }
    if (maxResultSize.toBytes() < 1024) {
      throw new IllegalArgumentException(
          "agentrt.tools.max-result-size must be at least 1KB, not " + maxResultSize);
    }
    if (maxConcurrentCalls < 1) {
      throw new IllegalArgumentException(
          "agentrt.tools.max-concurrent-calls must be at least 1, not " + maxConcurrentCalls);
    }
  }

  public ToolCallProperties(Duration timeout, Duration unclaimedAfter) {
    this(timeout, unclaimedAfter, Map.of());
  }

  public ToolCallProperties(
      Duration timeout, Duration unclaimedAfter, Map<String, ToolSettings.Override> overrides) {
    this(
        timeout,
        unclaimedAfter,
        overrides,
        DataSize.ofKilobytes(256),
        64,
        Retry.DEFAULTS,
        Duration.ofMillis(50));
  }

  public ToolCallProperties withMaxResultSize(DataSize size) {
    return new ToolCallProperties(
        timeout, unclaimedAfter, overrides, size, maxConcurrentCalls, retry, startShownAfter);
  }

  public ToolCallProperties withMaxConcurrentCalls(int calls) {
    return new ToolCallProperties(
        timeout, unclaimedAfter, overrides, maxResultSize, calls, retry, startShownAfter);
  }

  public ToolCallProperties withRetry(Retry policy) {
    return new ToolCallProperties(
        timeout,
        unclaimedAfter,
        overrides,
        maxResultSize,
        maxConcurrentCalls,
        policy,
        startShownAfter);
  }

  public ToolCallProperties withStartShownAfter(Duration after) {
    return new ToolCallProperties(
        timeout, unclaimedAfter, overrides, maxResultSize, maxConcurrentCalls, retry, after);
  }

  public ToolSettings settings() {
    return new ToolSettings(timeout, overrides);
  }
}
