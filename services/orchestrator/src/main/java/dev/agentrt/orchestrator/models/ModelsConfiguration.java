package dev.agentrt.orchestrator.models;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.model.ModelRouter;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The model names requests are checked against, the agents' models checked, and the price table.
 */
@Configuration
class ModelsConfiguration {

  /** The names the model router knows: the configured models, {@code offline} always among them. */
  @Bean
  ModelNames modelNames(ModelRouter router) {
    return new ModelNames() {
      @Override
      public boolean knows(String name) {
        return router.knows(name);
      }

      @Override
      public Set<String> names() {
        return router.names();
      }

      @Override
      public String defaultName() {
        return router.defaultModel();
      }
    };
  }

  /** Stops start-up when an agent names a model that is not configured. */
  @Bean
  AgentModels agentModels(AgentCatalog agents, ModelNames names) {
    AgentModels check = new AgentModels(agents, names);
    check.check();
    return check;
  }

  /** {@code agentrt.pricing.<model-name>: {prompt-per-million, completion-per-million}} (USD). */
  @Bean
  Pricing pricing(Environment environment, ModelNames names) {
    Map<String, Pricing.Price> prices =
        Binder.get(environment)
            .bind("agentrt.pricing", Bindable.mapOf(String.class, Pricing.Price.class))
            .orElse(Map.of());
    return new Pricing(prices, names);
  }
}
