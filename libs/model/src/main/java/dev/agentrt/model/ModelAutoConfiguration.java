package dev.agentrt.model;

import dev.agentrt.model.offline.OfflineModel;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@link ModelPort}: the {@link OfflineModel} unless the application or a provider's
 * auto-configuration (ordered before this one) defines another.
 */
@AutoConfiguration
public class ModelAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(ModelPort.class)
  ModelPort offlineModel() {
    return new OfflineModel();
  }
}
