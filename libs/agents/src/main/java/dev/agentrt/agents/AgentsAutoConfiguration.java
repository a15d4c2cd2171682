package dev.agentrt.agents;

import java.nio.file.Path;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The agent catalog, read and checked at start-up: from the file {@code agentrt.agents.file} (env
 * {@code AGENTRT_AGENTS_FILE}) when set, else from the classpath resource {@code
 * agentrt.agents.resource} ({@code agents.yml}).
 */
@AutoConfiguration
public class AgentsAutoConfiguration {

  @Bean
  AgentCatalog agentCatalog(
      @Value("${agentrt.agents.file:}") String file,
      @Value("${agentrt.agents.resource:agents.yml}") String resource) {
    return file.isBlank()
        ? AgentCatalog.fromClasspath(resource)
        : AgentCatalog.fromFile(Path.of(file.strip()));
  }
}
