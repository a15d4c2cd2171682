package dev.agentrt.agentloop;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class EventLagTest {

  private static final Instant NOW = Instant.parse("2026-12-05T20:00:00Z");
  private static final Duration WAIT = Duration.ofSeconds(1);

  private final EventLag lag = new EventLag(Clock.fixed(NOW, ZoneOffset.UTC));

  @Test
  void beforeAnyEventAnEndWaitsTheWholeWait() {
    assertThat(lag.waitFor(WAIT)).isEqualTo(WAIT);
  }

  @Test
  void eventsThatComeWithinHalfTheWaitOnAverageLetAnEndWait() {
    lag.saw(NOW.minusMillis(100));
    lag.saw(NOW.minusMillis(900)); // one late event among prompt ones
    lag.saw(NOW.minusMillis(100));

    assertThat(lag.averageMillis()).isBetween(1L, 499L);
    assertThat(lag.waitFor(WAIT)).isEqualTo(WAIT);
  }

  @Test
  void eventsThatComeLateOnAverageHaveAnEndReadAtOnce() {
    for (int i = 0; i < 4; i++) {
      lag.saw(NOW.minusSeconds(3)); // a burst's queue
    }

    assertThat(lag.waitFor(WAIT)).isEqualTo(Duration.ZERO);
  }

  @Test
  void onceEventsComePromptlyAgainAnEndWaitsAgain() {
    lag.saw(NOW.minusSeconds(30));
    assertThat(lag.waitFor(WAIT)).isEqualTo(Duration.ZERO);

    for (int i = 0; i < 40; i++) {
      lag.saw(NOW);
    }

    assertThat(lag.averageMillis()).isZero();
    assertThat(lag.waitFor(WAIT)).isEqualTo(WAIT);
  }

  @Test
  void anEventFromAPublisherWhoseClockIsAheadCountsAsOnTime() {
    lag.saw(NOW.plusSeconds(5));

    assertThat(lag.averageMillis()).isZero();
  }
}
