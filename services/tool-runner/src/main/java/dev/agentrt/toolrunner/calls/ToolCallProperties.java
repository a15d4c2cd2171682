package dev.agentrt.toolrunner.calls;

import dev.agentrt.toolrunner.tools.ToolSettings;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.tools.*}: how long a tool may run, how long a claimed call is held before another
 * worker may take it back, and how long an unclaimed pending call waits before the sweeper runs it.
 *
 * @param timeout a tool running longer fails with {@code timeout}, unless overridden for it
 * @param lease how long a claim holds; longer than every timeout, so a live worker keeps its call
 * @param unclaimedAfter a pending call older than this that nobody claimed (its event was lost) is
 *     run by the sweeper
 * @param overrides per tool name: {@code timeout}, {@code idempotent}
 */
@ConfigurationProperties("agentrt.tools")
public record ToolCallProperties(
    @DefaultValue("30s") Duration timeout,
    @DefaultValue("60s") Duration lease,
    @DefaultValue("10s") Duration unclaimedAfter,
    Map<String, ToolSettings.Override> overrides) {

  @ConstructorBinding
  public ToolCallProperties {
    overrides = overrides == null ? Map.of() : Map.copyOf(overrides);
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
