package dev.agentrt.agents;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/** The agent catalog, read and checked at start-up from {@code agentrt.agents.resource}. */
@AutoConfiguration
public class AgentsAutoConfiguration {

  @Bean
  AgentCatalog agentCatalog(@Value("${agentrt.agents.resource:agents.yml}") String resource) {
    return AgentCatalog.fromClasspath(resource);
  }
}
