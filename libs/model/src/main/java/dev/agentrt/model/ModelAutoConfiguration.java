package dev.agentrt.model;

import dev.agentrt.model.ModelsProperties.Definition;
import dev.agentrt.model.ModelsProperties.OfflineSettings;
import dev.agentrt.model.ModelsProperties.ShortForm;
import dev.agentrt.model.offline.OfflineModel;
import dev.agentrt.model.springai.SpringAiModel;
import io.micrometer.observation.ObservationRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@link ModelPort}: a {@link ModelRouter} over the models of {@code agentrt.models} (and the
 * short form {@code agentrt.model}), checked at start-up, each behind a {@link BoundedModel} that
 * holds its calls in flight to the configured maximum and observes each call ({@link
 * ObservedModel}), unless the application defines its own port. With nothing configured it routes
 * every request to the {@link OfflineModel}.
 */
@AutoConfiguration
@EnableConfigurationProperties({ModelsProperties.class, ShortForm.class, OfflineSettings.class})
public class ModelAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(ModelPort.class)
  ModelRouter modelRouter(
      ModelsProperties configured,
      ShortForm shortForm,
      OfflineSettings offline,
      ObjectProvider<ObservationRegistry> observations,
      @Value("${" + GenAi.CAPTURE_CONTENT + ":false}") boolean captureContent) {
    ModelsProperties models = configured.with(shortForm);
    models.check();
    ObservationRegistry registry = observations.getIfAvailable(() -> ObservationRegistry.NOOP);
    Map<String, ModelPort> ports = new LinkedHashMap<>();
    models
        .definitions()
        .forEach(
            (name, definition) ->
                ports.put(
                    name,
                    new ObservedModel(
                        new BoundedModel(
                            name, port(definition, offline), models.maxConcurrentCalls(definition)),
                        definition.provider(),
                        definition.model() == null ? name : definition.model(),
                        registry,
                        captureContent)));
    return new ModelRouter(ports, models.defaultModel());
  }

  private static ModelPort port(Definition definition, OfflineSettings offline) {
    return switch (definition.provider()) {
      case "openai" -> SpringAiModel.openAi(definition);
      case "anthropic" -> SpringAiModel.anthropic(definition);
      case "offline" -> new OfflineModel(offline.latency());
      default -> throw new IllegalStateException("unknown provider " + definition.provider());
    };
  }
}
