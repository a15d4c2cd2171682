package dev.agentrt.agentloop;

import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelPort;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Calls the model, retrying transient failures with exponential backoff and jitter. Runs on the
 * turn's own virtual thread, so waiting between attempts holds up no other sub-agent.
 */
@Component
class ModelCaller {

  private static final Logger log = LoggerFactory.getLogger(ModelCaller.class);

  private final ModelPort model;
  private final AgentLoopProperties properties;
  private final Counter calls;

  ModelCaller(ModelPort model, AgentLoopProperties properties, MeterRegistry meters) {
    this.model = model;
    this.properties = properties;
    this.calls =
        Counter.builder("agentrt.model.calls")
            .description("Model calls made for agent turns, retries included")
            .register(meters);
  }

  /**
   * @throws ModelException when the model fails for good: a non-transient error, or the last
   *     attempt
   */
  ModelReply call(ModelRequest request) throws InterruptedException {
    Duration backoff = properties.modelBackoff();
    for (int attempt = 1; ; attempt++) {
      try {
        calls.increment();
        return model.complete(request);
      } catch (ModelException e) {
        if (!e.transientFailure() || attempt >= properties.modelAttempts()) {
          throw e;
        }
        log.warn(
            "model call failed (attempt {} of {}), retrying in {}: {}",
            attempt,
            properties.modelAttempts(),
            backoff,
            e.getMessage());
      } catch (RuntimeException e) {
        if (attempt >= properties.modelAttempts()) {
          throw new ModelException("the model failed: " + e.getMessage(), false, e);
        }
        log.warn("model call failed (attempt {}), retrying in {}", attempt, backoff, e);
      }
      long jitter = ThreadLocalRandom.current().nextLong(backoff.toMillis() / 4 + 1);
      Thread.sleep(backoff.toMillis() + jitter);
      backoff = min(backoff.multipliedBy(2), properties.modelMaxBackoff());
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
