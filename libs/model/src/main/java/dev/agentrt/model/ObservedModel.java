package dev.agentrt.model;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * A configured model whose every call is a {@code chat {model}} span and a timer ({@link
 * GenAi#chat}): which provider and model, what for, the tokens and the finish reason; a failed call
 * carries its error. With {@code captureContent} ({@value GenAi#CAPTURE_CONTENT}) the span also
 * carries the messages given and the answer ({@link GenAi#input}, {@link GenAi#output}).
 */
final class ObservedModel implements ModelPort {

  private final ModelPort model;
  private final String provider;
  private final String modelName;
  private final ObservationRegistry registry;
  private final boolean captureContent;

  ObservedModel(
      ModelPort model,
      String provider,
      String modelName,
      ObservationRegistry registry,
      boolean captureContent) {
    this.model = model;
    this.provider = provider;
    this.modelName = modelName;
    this.registry = registry;
    this.captureContent = captureContent;
  }

  @Override
  public ModelReply complete(ModelRequest request) {
    Observation chat =
        GenAi.chat(registry, provider, modelName, request.purpose().name().toLowerCase());
    if (captureContent) {
      GenAi.input(chat, request);
    }
    return chat.observe(
        () -> {
          ModelReply reply = model.complete(request);
          if (captureContent) {
            GenAi.output(chat, reply);
          }
          GenAi.answered(
              chat,
              reply.usage().promptTokens(),
              reply.usage().completionTokens(),
              reply.finishReason());
          return reply;
        });
  }
}
