package dev.agentrt.model;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * A configured model whose every call is a {@code chat {model}} span and a timer ({@link
 * GenAi#chat}): which provider and model, what for, the tokens and the finish reason; a failed call
 * carries its error.
 */
final class ObservedModel implements ModelPort {

  private final ModelPort model;
  private final String provider;
  private final String modelName;
  private final ObservationRegistry registry;

  ObservedModel(ModelPort model, String provider, String modelName, ObservationRegistry registry) {
    this.model = model;
    this.provider = provider;
    this.modelName = modelName;
    this.registry = registry;
  }

  @Override
  public ModelReply complete(ModelRequest request) {
    Observation chat =
        GenAi.chat(registry, provider, modelName, request.purpose().name().toLowerCase());
    return chat.observe(
        () -> {
          ModelReply reply = model.complete(request);
          GenAi.answered(
              chat,
              reply.usage().promptTokens(),
              reply.usage().completionTokens(),
              reply.finishReason());
          return reply;
        });
  }
}
