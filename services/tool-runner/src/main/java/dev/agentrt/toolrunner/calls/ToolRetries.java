package dev.agentrt.toolrunner.calls;

import dev.agentrt.toolrunner.tools.ToolOutcome;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tries a tool call again after a transient failure (a timeout, a connection error, a 5xx, an MCP
 * server gone), as {@code agentrt.tools.retry} says, before the model sees the error. Only
 * idempotent tools are tried again: a tool that may have taken effect is never run twice. The wait
 * doubles from {@code initialBackoff}, with up to a quarter more of jitter, and never exceeds
 * {@code maxBackoff}. The attempts bound the time: at most {@code maxAttempts} times the tool's
 * timeout plus the waits. (The call's lease is renewed while they run, so it sets no deadline; a
 * cancelled task's call is interrupted, in an attempt or a wait.)
 */
final class ToolRetries {

  private static final Logger log = LoggerFactory.getLogger(ToolRetries.class);

  /** Waits between attempts; {@link Thread#sleep(Duration)} outside tests. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  private final ToolCallProperties.Retry policy;
  private final Sleeper sleeper;

  ToolRetries(ToolCallProperties.Retry policy) {
    this(policy, Thread::sleep);
  }

  ToolRetries(ToolCallProperties.Retry policy, Sleeper sleeper) {
    this.policy = policy;
    this.sleeper = sleeper;
  }

  /**
   * Runs the attempt until it succeeds, fails for good, or the attempts run out.
   *
   * @return the last attempt's outcome
   */
  ToolOutcome run(String tool, boolean idempotent, Supplier<ToolOutcome> attempt) {
    Duration wait = policy.initialBackoff();
    for (int n = 1; ; n++) {
      ToolOutcome outcome = attempt.get();
      if (!(outcome instanceof ToolOutcome.Failure failure)
          || !failure.transientFailure()
          || !idempotent
          || n >= policy.maxAttempts()) {
        return outcome;
      }
      Duration pause = min(wait.plusMillis(jitter(wait)), policy.maxBackoff());
      log.info(
          "{} failed (attempt {} of {}), trying again in {}: {}",
          tool,
          n,
          policy.maxAttempts(),
          pause,
          failure.message());
      try {
        sleeper.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting to run " + tool + " again", e);
      }
      wait = min(wait.multipliedBy(2), policy.maxBackoff());
    }
  }

  private static long jitter(Duration wait) {
    return ThreadLocalRandom.current().nextLong(wait.toMillis() / 4 + 1);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
