package dev.agentrt.model;

import io.opentelemetry.context.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the model with bounds: each call has a timeout, transient failures are retried with a
 * doubling backoff, and nothing starts after the caller's deadline. A model failure ends as a
 * {@link ModelException}; an interrupt (the service stopping) as an {@link IllegalStateException},
 * so the event is handled again rather than answered with an apology. The wait between attempts
 * doubles, with up to a quarter more of jitter, and never exceeds {@link #MAX_BACKOFF}.
 *
 * <p>Time a call spends waiting for a free slot of a busy model ({@link BoundedModel}) counts
 * toward the deadline, not the timeout: the timeout is the provider's, and starts when the slot is
 * held. The deadline passing while the call still waits ends it for good.
 */
public final class ModelRetries {

  public static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /** Longer than any wait; a deadline further away is as good as none. */
  private static final Duration LONGEST = Duration.ofDays(365L * 100);

  private static final Logger log = LoggerFactory.getLogger(ModelRetries.class);

  private final ModelPort model;
  private final int attempts;
  private final Duration backoff;
  private final Duration timeout;
  private final Clock clock;
  private final Sleeper sleeper;

  /** Waits between attempts; {@link Thread#sleep(Duration)} outside tests. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  public ModelRetries(
      ModelPort model, int attempts, Duration backoff, Duration timeout, Clock clock) {
    this(model, attempts, backoff, timeout, clock, Thread::sleep);
  }

  public ModelRetries(
      ModelPort model,
      int attempts,
      Duration backoff,
      Duration timeout,
      Clock clock,
      Sleeper sleeper) {
    this.model = model;
    this.attempts = Math.max(1, attempts);
    this.backoff = backoff;
    this.timeout = timeout;
    this.clock = clock;
    this.sleeper = sleeper;
  }

  /** Calls the model with retries, starting nothing after the deadline. */
  public ModelReply complete(ModelRequest request, Instant deadline) {
    Duration wait = backoff;
    for (int attempt = 1; ; attempt++) {
      try {
        return callOnce(request, deadline);
      } catch (ModelException e) {
        if (!e.transientFailure() || attempt >= attempts) {
          throw e;
        }
        if (e.retryAfter().isPresent() && e.retryAfter().get().compareTo(wait) > 0) {
          wait = e.retryAfter().get();
        }
        log.warn(
            "model call failed (attempt {} of {}), retrying in {}: {}",
            attempt,
            attempts,
            wait,
            e.getMessage());
      }
      long jitter = ThreadLocalRandom.current().nextLong(wait.toMillis() / 4 + 1);
      sleep(min(wait.plusMillis(jitter), Duration.between(clock.instant(), deadline)));
      wait = min(wait.multipliedBy(2), MAX_BACKOFF);
    }
  }

  /**
   * One attempt, bounded by the timeout and the deadline. Time spent waiting for a permit of a
   * {@link BoundedModel} counts against the deadline only: the timeout is the provider's.
   */
  private ModelReply callOnce(ModelRequest request, Instant deadline) {
    Duration untilDeadline = Duration.between(clock.instant(), deadline);
    if (untilDeadline.isNegative() || untilDeadline.isZero()) {
      throw new ModelException("no time left for another model call", false);
    }
    PermitWait permitWait = new PermitWait();
    // The call runs in this thread's trace: its span is the caller's child.
    FutureTask<ModelReply> call =
        new FutureTask<>(
            Context.current().wrap(() -> permitWait.during(() -> model.complete(request))));
    long started = System.nanoTime();
    long deadlineNanos = nanos(untilDeadline);
    Thread.ofVirtual().name("model-call").start(call);
    try {
      while (true) {
        long elapsed = System.nanoTime() - started;
        long providerLeft = nanos(timeout) - (elapsed - permitWait.waitedNanos(started + elapsed));
        long deadlineLeft = deadlineNanos - elapsed;
        if (deadlineLeft <= 0 && permitWait.waiting()) {
          call.cancel(true);
          throw new ModelException(
              "the deadline passed while waiting for the model (too many calls in flight)", false);
        }
        if (providerLeft <= 0 || deadlineLeft <= 0) {
          call.cancel(true);
          throw new ModelException(
              "the model did not answer within " + min(timeout, untilDeadline), true);
        }
        try {
          return call.get(Math.min(providerLeft, deadlineLeft), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
          // Look again: time waiting for a permit does not count against the timeout.
        }
      }
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the model", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ModelException modelFailure) {
        throw modelFailure;
      }
      // An unexpected failure inside the port (a network error it did not wrap, say): may pass.
      throw new ModelException("the model call failed: " + e.getCause(), true, e.getCause());
    }
  }

  /** The duration in nanoseconds, at most about 292 years (a deadline of Instant.MAX fits). */
  private static long nanos(Duration duration) {
    return duration.compareTo(LONGEST) >= 0 ? LONGEST.toNanos() : duration.toNanos();
  }

  private void sleep(Duration duration) {
    if (duration.isNegative() || duration.isZero()) {
      return;
    }
    try {
      sleeper.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting to call the model again", e);
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
