package dev.agentrt.orchestrator.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that stands still until a test moves it, so time-bound behaviour needs no waiting. */
public final class SettableClock extends Clock {

  private volatile Instant now;

  public SettableClock() {
    this(Instant.now());
  }

  public SettableClock(Instant now) {
    this.now = now;
  }

  public void advance(Duration by) {
    now = now.plus(by);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
