package dev.agentrt.agentloop;

import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelPort;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelRetries;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import org.springframework.stereotype.Component;

/**
 * Calls the model for a turn: each attempt bounded by a timeout, transient failures retried with
 * backoff. Runs on the turn's own virtual thread, so waiting holds up no other sub-agent. Counts
 * every attempt ({@code agentrt.model.calls}).
 */
@Component
class ModelCaller {

  private final ModelRetries retries;

  ModelCaller(ModelPort model, AgentLoopProperties properties, MeterRegistry meters) {
    Counter calls =
        Counter.builder("agentrt.model.calls")
            .description("Model calls made for agent turns, retries included")
            .register(meters);
    ModelPort counted =
        request -> {
          calls.increment();
          return model.complete(request);
        };
    this.retries =
        new ModelRetries(
            counted,
            properties.modelAttempts(),
            properties.modelBackoff(),
            properties.modelTimeout(),
            Clock.systemUTC());
  }

  /**
   * @throws ModelException when the model fails for good: a non-transient error, or the last
   *     attempt
   */
  ModelReply call(ModelRequest request) {
    return retries.complete(request, Instant.MAX);
  }
}
