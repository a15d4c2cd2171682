package dev.agentrt.model.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelPort;
import dev.agentrt.model.ModelRetries;
import dev.agentrt.model.ModelsProperties.Definition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Interrupting the thread in a model call (a cancelled task's turn, on its virtual thread) closes
 * the HTTP request at once and ends the call with a failure that is not tried again.
 */
class InterruptedCallTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final HeldProvider provider = new HeldProvider();
  private final AtomicBoolean stillInterrupted = new AtomicBoolean();

  @AfterEach
  void stop() {
    provider.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"openai", "anthropic"})
  void anInterruptClosesTheRequestAndFailsForGood(String providerName) throws Exception {
    SpringAiModel model = model(providerName);
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    Thread turn = inFlight(model::complete, failure);

    turn.interrupt();

    await().atMost(Duration.ofSeconds(5)).until(() -> provider.closedByClient().getCount() == 0);
    assertThat(failure.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ModelException.class)
        .hasMessageEndingWith(": interrupted; the request was closed");
    assertThat(((ModelException) failure.get()).transientFailure()).isFalse();
    assertThat(stillInterrupted).isTrue();
    assertThat(provider.connections()).as("no second attempt").isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"openai", "anthropic"})
  void underRetriesTheInterruptedCallIsClosedAndNotTriedAgain(String providerName)
      throws Exception {
    ModelRetries retries =
        new ModelRetries(model(providerName), 5, Duration.ZERO, TIMEOUT, Clock.systemUTC());
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    Thread turn = inFlight(request -> retries.complete(request, Instant.MAX), failure);

    turn.interrupt();

    await().atMost(Duration.ofSeconds(5)).until(() -> provider.closedByClient().getCount() == 0);
    // ModelRetries ends an interrupted call as IllegalStateException (ModelRetries' Javadoc).
    assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
    assertThat(stillInterrupted).isTrue();
    assertThat(provider.connections()).as("no second attempt").isEqualTo(1);
  }

  private SpringAiModel model(String providerName) {
    return providerName.equals("openai")
        ? SpringAiModel.openAi(
            new Definition(
                "openai", provider.baseUrl() + "/v1", "key", "gpt-test", null, null, TIMEOUT, null))
        : SpringAiModel.anthropic(
            new Definition(
                "anthropic", provider.baseUrl(), "key", "claude-test", null, null, TIMEOUT, null));
  }

  /**
   * Starts a call on a virtual thread, as a turn runs, and returns once the provider holds its
   * request; {@code failure} gets what the call threw.
   */
  private Thread inFlight(ModelPort call, CompletableFuture<Throwable> failure)
      throws InterruptedException {
    Thread turn =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    call.complete(Conversations.question("Take your time"));
                    failure.complete(null);
                  } catch (RuntimeException e) {
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                    failure.complete(e);
                  }
                });
    assertThat(provider.received().await(10, TimeUnit.SECONDS)).isTrue();
    return turn;
  }
}
