package dev.agentrt.agents;

import dev.agentrt.model.ModelsProperties;
import dev.agentrt.model.ModelsProperties.ShortForm;
import dev.agentrt.store.ConfigVersion;
import dev.agentrt.store.Digest;
import java.nio.file.Path;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The agent catalog, read and checked at start-up: from the file {@code agentrt.agents.file} (env
 * {@code AGENTRT_AGENTS_FILE}) when set, else from the classpath resource {@code
 * agentrt.agents.resource} ({@code agents.yml}); and the configuration's version, a digest of that
 * file and of the models' settings.
 */
@AutoConfiguration
@EnableConfigurationProperties({ModelsProperties.class, ShortForm.class})
public class AgentsAutoConfiguration {

  @Bean
  AgentCatalog agentCatalog(
      @Value("${agentrt.agents.file:}") String file,
      @Value("${agentrt.agents.resource:agents.yml}") String resource) {
    return file.isBlank()
        ? AgentCatalog.fromClasspath(resource)
        : AgentCatalog.fromFile(Path.of(file.strip()));
  }

  /**
   * The version of what shapes the agents' answers: the agents file and the models' settings (as
   * {@link ModelsProperties#answerSettings} says), computed once, the same in every service given
   * the same files and settings.
   */
  @Bean
  ConfigVersion configVersion(AgentCatalog agents, ModelsProperties models, ShortForm shortForm) {
    return new ConfigVersion(Digest.of(agents.digest(), models.with(shortForm).answerSettings()));
  }
}
