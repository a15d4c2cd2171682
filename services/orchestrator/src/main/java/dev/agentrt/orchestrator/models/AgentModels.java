package dev.agentrt.orchestrator.models;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.agents.InvalidAgentsException;

/**
 * The agents file names models the agents' turns use; each must be a configured model. The agents
 * library cannot see the configured models, so the check runs here, at start-up: a wrong name stops
 * the orchestrator with a message naming the agent, instead of failing the agent's first run.
 */
final class AgentModels {

  private final AgentCatalog agents;
  private final ModelNames names;

  AgentModels(AgentCatalog agents, ModelNames names) {
    this.agents = agents;
    this.names = names;
  }

  /**
   * @throws InvalidAgentsException naming the first agent whose model is not configured
   */
  void check() {
    for (AgentDefinition agent : agents.all()) {
      if (agent.model() != null && !names.knows(agent.model())) {
        throw new InvalidAgentsException(
            "the agents file: agent '"
                + agent.name()
                + "' names an "
                + names.unknown(agent.model()));
      }
    }
  }
}
