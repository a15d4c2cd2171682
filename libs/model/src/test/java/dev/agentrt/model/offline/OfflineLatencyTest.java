package dev.agentrt.model.offline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelRequest.Purpose;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class OfflineLatencyTest {

  private static final ModelRequest HELLO =
      new ModelRequest(Purpose.DECISION, List.of(ModelMessage.user("hi")), List.of(), null);

  @Test
  void everyCallTakesTheLatency() {
    ModelReply reply = new OfflineModel(Duration.ofMillis(50)).complete(HELLO);

    assertThat(reply.latencyMs()).isGreaterThanOrEqualTo(50);
    assertThat(reply.content()).isEqualTo(new OfflineModel().complete(HELLO).content());
  }

  @Test
  void anInterruptEndsTheLatencyAtOnceKeepingTheFlag() throws Exception {
    OfflineModel model = new OfflineModel(Duration.ofHours(1));
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    Thread call =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    model.complete(HELLO);
                    failure.complete(null);
                  } catch (RuntimeException e) {
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                    failure.complete(e);
                  }
                });

    call.interrupt();

    assertThat(failure.get())
        .isInstanceOf(ModelException.class)
        .hasMessage("offline model: interrupted");
    assertThat(((ModelException) failure.get()).transientFailure()).isFalse();
    assertThat(stillInterrupted).isTrue();
  }
}
