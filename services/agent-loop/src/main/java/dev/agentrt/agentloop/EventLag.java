package dev.agentrt.agentloop;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How late the events that wake this instance's sub-agents come: from their message's storing (the
 * event's {@code occurredAt}, on its publisher's clock) to their wake here, as a moving average in
 * which each event weighs a quarter. It tells a turn's end that found a message stored before its
 * event came whether waiting for that event is likely to pay ({@link #waitFor}): while the consumer
 * keeps up, the event comes within milliseconds and saves the read of the message; under a burst,
 * when it queues behind thousands of others, waiting would add that queue to the round, where
 * reading costs a round trip or two.
 */
final class EventLag {

  private final Clock clock;
  private final AtomicLong averageMillis = new AtomicLong();

  EventLag(Clock clock) {
    this.clock = clock;
  }

  /** An event of a message stored at {@code occurredAt} came now. */
  void saw(Instant occurredAt) {
    long late = Math.max(0, clock.millis() - occurredAt.toEpochMilli());
    averageMillis.getAndUpdate(average -> average + Math.floorDiv(late - average, 4));
  }

  /**
   * How long to wait for an event: {@code longest} while events come within half of it on average,
   * else not at all.
   */
  Duration waitFor(Duration longest) {
    return 2 * averageMillis.get() < longest.toMillis() ? longest : Duration.ZERO;
  }

  /** The average, for the log. */
  long averageMillis() {
    return averageMillis.get();
  }
}
