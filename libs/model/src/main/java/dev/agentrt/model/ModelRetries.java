package dev.agentrt.model;

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
 */
public final class ModelRetries {

  public static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

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

  private ModelReply callOnce(ModelRequest request, Instant deadline) {
    Duration limit = min(timeout, Duration.between(clock.instant(), deadline));
    if (limit.isNegative() || limit.isZero()) {
      throw new ModelException("no time left for another model call", false);
    }
    FutureTask<ModelReply> call = new FutureTask<>(() -> model.complete(request));
    Thread.ofVirtual().name("model-call").start(call);
    try {
      return call.get(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new ModelException("the model did not answer within " + limit, true, e);
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
