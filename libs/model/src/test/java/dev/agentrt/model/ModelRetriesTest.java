package dev.agentrt.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.agentrt.model.ModelReply.Usage;
import dev.agentrt.model.ModelRequest.Purpose;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ModelRetriesTest {

  private static final Instant START = Instant.parse("2026-01-01T12:00:00Z");
  private static final Instant DEADLINE = START.plus(Duration.ofHours(1));
  private static final ModelRequest REQUEST =
      new ModelRequest(Purpose.FINAL_ANSWER, List.of(ModelMessage.user("hi")), List.of(), null);
  private static final ModelReply ANSWER =
      new ModelReply("hello", List.of(), new Usage(1, 1), "stop", 0);

  private final List<Duration> waits = new ArrayList<>();
  private final SleepingClock clock = new SleepingClock();

  @Test
  void waitsAsLongAsTheProviderAsks() {
    ModelRetries retries = retries(failingOnce(Duration.ofSeconds(7)), Duration.ofSeconds(1));

    assertThat(retries.complete(REQUEST, DEADLINE)).isEqualTo(ANSWER);
    assertThat(waits)
        .singleElement()
        .satisfies(
            wait ->
                assertThat(wait)
                    .as("7 s and up to a quarter of jitter")
                    .isBetween(Duration.ofSeconds(7), Duration.ofMillis(8750)));
  }

  @Test
  void keepsItsOwnBackoffWhenTheProviderAsksForLess() {
    ModelRetries retries = retries(failingOnce(Duration.ofMillis(100)), Duration.ofSeconds(2));

    assertThat(retries.complete(REQUEST, DEADLINE)).isEqualTo(ANSWER);
    assertThat(waits)
        .singleElement()
        .satisfies(
            wait -> assertThat(wait).isBetween(Duration.ofSeconds(2), Duration.ofMillis(2500)));
  }

  @Test
  void neverWaitsPastTheDeadline() {
    Instant soon = START.plusSeconds(10);
    ModelRetries retries = retries(failingOnce(Duration.ofHours(1)), Duration.ofSeconds(1));

    ModelException failure =
        catchThrowableOfType(ModelException.class, () -> retries.complete(REQUEST, soon));

    assertThat(waits).containsExactly(Duration.ofSeconds(10));
    assertThat(failure).hasMessage("no time left for another model call");
  }

  @Test
  void doesNotRetryWhatIsNotTransient() {
    ModelPort unauthorized =
        request -> {
          throw new ModelException("HTTP 401", false);
        };

    ModelException failure =
        catchThrowableOfType(
            ModelException.class,
            () -> retries(unauthorized, Duration.ofSeconds(1)).complete(REQUEST, DEADLINE));

    assertThat(failure).hasMessage("HTTP 401");
    assertThat(waits).isEmpty();
  }

  @Test
  void timeWaitingForAPermitDoesNotCountAgainstTheAttemptsTimeout() {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    BoundedModel model =
        new BoundedModel(
            "m",
            request -> {
              if (calls.getAndIncrement() == 0) {
                hold(release);
              }
              return ANSWER;
            },
            1);
    // Long beside the few steps before the wait starts, which do count.
    Duration timeout = Duration.ofMillis(500);
    ModelRetries retries = new ModelRetries(model, 1, Duration.ZERO, timeout, Clock.systemUTC());
    CompletableFuture<ModelReply> holder = onVirtualThread(() -> complete(model));
    await().until(() -> calls.get() == 1);

    CompletableFuture<ModelReply> waiter =
        onVirtualThread(() -> retries.complete(REQUEST, Instant.MAX));
    await().until(() -> model.waiting() == 1);
    long queued = System.nanoTime();
    // Let the waiting call wait well past its timeout before it gets the permit.
    await().until(() -> System.nanoTime() - queued > timeout.multipliedBy(3).toNanos());
    release.countDown();

    assertThat(waiter).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(ANSWER);
    assertThat(holder).succeedsWithin(Duration.ofSeconds(5));
  }

  @Test
  void theDeadlinePassingWhileWaitingForAPermitEndsTheCallForGood() {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    BoundedModel model =
        new BoundedModel(
            "m",
            request -> {
              calls.incrementAndGet();
              hold(release);
              return ANSWER;
            },
            1);
    ModelRetries retries =
        new ModelRetries(model, 3, Duration.ZERO, Duration.ofMinutes(1), Clock.systemUTC());
    CompletableFuture<ModelReply> holder = onVirtualThread(() -> complete(model));
    await().until(() -> calls.get() == 1);

    Instant deadline = Instant.now().plusMillis(100);
    ModelException failure =
        catchThrowableOfType(ModelException.class, () -> retries.complete(REQUEST, deadline));

    // Said so while it waits; "no time left" when the deadline came before the wait began.
    assertThat(failure.getMessage())
        .isIn(
            "the deadline passed while waiting for the model (too many calls in flight)",
            "no time left for another model call");
    assertThat(failure.transientFailure()).isFalse();
    assertThat(calls).as("never reached the model").hasValue(1);
    release.countDown();
    assertThat(holder).succeedsWithin(Duration.ofSeconds(5));
    await().until(() -> model.waiting() == 0 && model.inFlight() == 0);
  }

  private static void hold(CountDownLatch release) {
    try {
      release.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static CompletableFuture<ModelReply> onVirtualThread(
      java.util.function.Supplier<ModelReply> call) {
    CompletableFuture<ModelReply> reply = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                reply.complete(call.get());
              } catch (RuntimeException e) {
                reply.completeExceptionally(e);
              }
            });
    return reply;
  }

  private static ModelReply complete(ModelPort model) {
    return model.complete(REQUEST);
  }

  private ModelRetries retries(ModelPort model, Duration backoff) {
    return new ModelRetries(model, 3, backoff, Duration.ofSeconds(30), clock, clock::sleep);
  }

  /** Time passes only when the retries wait; every wait is recorded. */
  private final class SleepingClock extends Clock {

    private Instant now = START;

    void sleep(Duration duration) {
      waits.add(duration);
      now = now.plus(duration);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }

  private static ModelPort failingOnce(Duration retryAfter) {
    AtomicInteger calls = new AtomicInteger();
    return request -> {
      if (calls.getAndIncrement() == 0) {
        throw new ModelException("rate limited", true, retryAfter, null);
      }
      return ANSWER;
    };
  }
}
