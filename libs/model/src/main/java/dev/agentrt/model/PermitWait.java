package dev.agentrt.model;

import java.util.concurrent.Callable;

/**
 * How long one model attempt has waited for a permit of a {@link BoundedModel}. {@link
 * ModelRetries} runs each attempt with one of these set for the attempt's thread and takes the wait
 * out of the attempt's timeout; without one (a caller that does not time its calls) the bound waits
 * all the same and nothing is recorded.
 */
final class PermitWait {

  private static final ThreadLocal<PermitWait> CURRENT = new ThreadLocal<>();

  private long waitedNanos;
  private long waitingSince;
  private boolean waiting;

  /** Runs the call with this wait as the current thread's. */
  <T> T during(Callable<T> call) throws Exception {
    CURRENT.set(this);
    try {
      return call.call();
    } finally {
      CURRENT.remove();
    }
  }

  /** The current thread starts waiting for a permit. */
  static void begin() {
    PermitWait current = CURRENT.get();
    if (current != null) {
      current.started(System.nanoTime());
    }
  }

  /** The current thread holds its permit, or gave up waiting. */
  static void end() {
    PermitWait current = CURRENT.get();
    if (current != null) {
      current.ended(System.nanoTime());
    }
  }

  /** The time spent waiting for a permit up to {@code now} ({@link System#nanoTime()}). */
  synchronized long waitedNanos(long now) {
    return waiting ? waitedNanos + (now - waitingSince) : waitedNanos;
  }

  /** Whether the attempt is waiting for a permit now. */
  synchronized boolean waiting() {
    return waiting;
  }

  private synchronized void started(long now) {
    waiting = true;
    waitingSince = now;
  }

  private synchronized void ended(long now) {
    if (waiting) {
      waitedNanos += now - waitingSince;
      waiting = false;
    }
  }
}
