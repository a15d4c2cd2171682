package dev.agentrt.toolrunner.calls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentrt.toolrunner.tools.ErrorType;
import dev.agentrt.toolrunner.tools.ToolOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The retry policy alone: which failures are tried again, how often, and the waits between. */
class ToolRetriesTest {

  private static final ToolOutcome.Failure GONE =
      new ToolOutcome.Failure(ErrorType.tool_error, "connection refused", true);
  private static final ToolOutcome.Failure BAD =
      new ToolOutcome.Failure(ErrorType.invalid_arguments, "field 'a': required", false);

  private final List<Duration> waits = new ArrayList<>();
  private final AtomicInteger attempts = new AtomicInteger();
  private final ToolRetries retries =
      new ToolRetries(
          new ToolCallProperties.Retry(6, Duration.ofSeconds(1), Duration.ofSeconds(10)),
          waits::add);

  private ToolOutcome run(boolean idempotent, ToolOutcome... outcomes) {
    return retries.run(
        "tool",
        idempotent,
        () -> outcomes[Math.min(attempts.getAndIncrement(), outcomes.length - 1)]);
  }

  @Test
  void waitsDoubleWithAtMostAQuarterOfJitterUpToTheMaximum() {
    ToolOutcome outcome = run(true, GONE);

    assertThat(outcome).isEqualTo(GONE);
    assertThat(attempts).hasValue(6);
    assertThat(waits).hasSize(5);
    long[] base = {1000, 2000, 4000, 8000, 10000};
    for (int i = 0; i < base.length; i++) {
      assertThat(waits.get(i).toMillis())
          .isBetween(base[i], Math.min(base[i] + base[i] / 4, 10_000));
    }
  }

  @Test
  void aSuccessAfterTransientFailuresEndsTheRetries() {
    ToolOutcome ok = new ToolOutcome.Success("{}");

    assertThat(run(true, GONE, GONE, ok)).isEqualTo(ok);
    assertThat(attempts).hasValue(3);
  }

  @Test
  void neitherAFailureThatIsNotTransientNorAToolThatIsNotIdempotentIsTriedAgain() {
    assertThat(run(true, BAD)).isEqualTo(BAD);
    assertThat(run(false, GONE)).isEqualTo(GONE);

    assertThat(attempts).hasValue(2);
    assertThat(waits).isEmpty();
  }

  @Test
  void anInterruptedWaitEndsTheRetries() {
    ToolRetries interrupted =
        new ToolRetries(
            new ToolCallProperties.Retry(6, Duration.ofSeconds(1), Duration.ofSeconds(10)),
            wait -> {
              throw new InterruptedException("cancelled");
            });

    assertThatThrownBy(() -> interrupted.run("tool", true, this::attempt))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("interrupted");
    assertThat(Thread.interrupted()).as("the interruption is kept for the caller").isTrue();
    assertThat(attempts).hasValue(1);
  }

  private ToolOutcome attempt() {
    attempts.incrementAndGet();
    return GONE;
  }
}
