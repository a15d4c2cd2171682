package dev.agentrt.toolrunner.calls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.toolrunner.tools.ErrorType;
import dev.agentrt.toolrunner.tools.ToolOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The retry policy alone: which failures are tried again, how often, and the waits between. */
class ToolRetriesTest {

  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
  private static final ToolOutcome.Failure GONE =
      new ToolOutcome.Failure(ErrorType.tool_error, "connection refused", true);
  private static final ToolOutcome.Failure BAD =
      new ToolOutcome.Failure(ErrorType.invalid_arguments, "field 'a': required", false);

  private final List<Duration> waits = new ArrayList<>();
  private final AtomicInteger attempts = new AtomicInteger();
  private final ToolRetries retries =
      new ToolRetries(
          new ToolCallProperties.Retry(6, Duration.ofSeconds(1), Duration.ofSeconds(10)),
          Clock.fixed(NOW, ZoneOffset.UTC),
          waits::add);

  private ToolOutcome run(boolean idempotent, Instant deadline, ToolOutcome... outcomes) {
    return retries.run(
        "tool",
        idempotent,
        Duration.ofSeconds(5),
        deadline,
        () -> outcomes[Math.min(attempts.getAndIncrement(), outcomes.length - 1)]);
  }

  @Test
  void waitsDoubleWithAtMostAQuarterOfJitterUpToTheMaximum() {
    ToolOutcome outcome = run(true, NOW.plusSeconds(3600), GONE);

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

    assertThat(run(true, NOW.plusSeconds(3600), GONE, GONE, ok)).isEqualTo(ok);
    assertThat(attempts).hasValue(3);
  }

  @Test
  void neitherAFailureThatIsNotTransientNorAToolThatIsNotIdempotentIsTriedAgain() {
    assertThat(run(true, NOW.plusSeconds(3600), BAD)).isEqualTo(BAD);
    assertThat(run(false, NOW.plusSeconds(3600), GONE)).isEqualTo(GONE);

    assertThat(attempts).hasValue(2);
    assertThat(waits).isEmpty();
  }

  @Test
  void noAttemptStartsThatCouldNotEndBeforeTheDeadline() {
    // After the first failure: a wait of at least 1 s and a 5 s timeout do not fit in 5.5 s.
    assertThat(run(true, NOW.plusMillis(5500), GONE)).isEqualTo(GONE);

    assertThat(attempts).hasValue(1);
    assertThat(waits).isEmpty();
  }
}
