package dev.agentrt.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.model.ModelReply.Usage;
import dev.agentrt.model.ModelRequest.Purpose;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BoundedModelTest {

  private static final ModelRequest REQUEST =
      new ModelRequest(Purpose.AGENT_TURN, List.of(ModelMessage.user("hi")), List.of(), null);
  private static final ModelReply ANSWER =
      new ModelReply("hello", List.of(), new Usage(1, 1), "stop", 0);

  /** Each call enters, then waits until the test lets one call finish. */
  private final AtomicInteger entered = new AtomicInteger();

  private final Semaphore finish = new Semaphore(0);
  private final ModelPort held =
      request -> {
        entered.incrementAndGet();
        finish.acquireUninterruptibly();
        return ANSWER;
      };

  @Test
  void theThirdCallWaitsUntilOneOfTwoFinishes() {
    BoundedModel model = new BoundedModel("m", held, 2);

    CompletableFuture<ModelReply> first = call(model);
    CompletableFuture<ModelReply> second = call(model);
    await().until(() -> entered.get() == 2);
    CompletableFuture<ModelReply> third = call(model);
    await().until(() -> model.waiting() == 1);

    assertThat(entered).hasValue(2);
    assertThat(third).isNotDone();

    finish.release();
    await().until(() -> entered.get() == 3);
    assertThat(model.inFlight()).isEqualTo(2);
    assertThat(model.waiting()).isZero();

    finish.release(2);
    assertThat(first.join()).isEqualTo(ANSWER);
    assertThat(second.join()).isEqualTo(ANSWER);
    assertThat(third.join()).isEqualTo(ANSWER);
    assertThat(model.inFlight()).isZero();
  }

  @Test
  void anInterruptEndsTheWaitAtOnceKeepingTheFlagAndThePermits() throws Exception {
    BoundedModel model = new BoundedModel("m", held, 1);
    CompletableFuture<ModelReply> holder = call(model);
    await().until(() -> entered.get() == 1);
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    Thread waiter =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    model.complete(REQUEST);
                    failure.complete(null);
                  } catch (RuntimeException e) {
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                    failure.complete(e);
                  }
                });
    await().until(() -> model.waiting() == 1);

    waiter.interrupt();

    assertThat(failure.get())
        .isInstanceOf(ModelException.class)
        .hasMessage("model m: interrupted while waiting for one of its 1 call slots");
    assertThat(((ModelException) failure.get()).transientFailure()).isFalse();
    assertThat(stillInterrupted).isTrue();
    assertThat(entered).as("the interrupted call never reached the model").hasValue(1);
    finish.release();
    assertThat(holder.join()).isEqualTo(ANSWER);
    assertThat(model.inFlight()).isZero();
  }

  @Test
  void aFailedCallGivesItsPermitBack() {
    BoundedModel model =
        new BoundedModel(
            "m",
            request -> {
              throw new ModelException("HTTP 500", true);
            },
            1);

    for (int i = 0; i < 3; i++) {
      assertThat(call(model)).failsWithin(java.time.Duration.ofSeconds(5));
    }
    assertThat(model.inFlight()).isZero();
  }

  private static CompletableFuture<ModelReply> call(ModelPort model) {
    CompletableFuture<ModelReply> reply = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                reply.complete(model.complete(REQUEST));
              } catch (RuntimeException e) {
                reply.completeExceptionally(e);
              }
            });
    return reply;
  }
}
