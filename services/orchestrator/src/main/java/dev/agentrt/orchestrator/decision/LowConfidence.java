package dev.agentrt.orchestrator.decision;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.store.Task;
import java.util.Optional;

/**
 * Where a new task goes when the model is not sure enough of its choice (confidence below {@code
 * agentrt.routing.min-confidence}): to the fallback agent of agents.yml ({@code
 * routing.fallbackAgent}), or, when none is configured, nowhere: the person is asked to clarify.
 */
final class LowConfidence {

  static final String CLARIFY =
      "I'm not sure what you'd like me to do with that. Could you say a little more about what you"
          + " need?";

  private final double minConfidence;
  private final Optional<String> fallbackAgent;

  LowConfidence(RoutingProperties properties, AgentCatalog agents) {
    this.minConfidence = properties.minConfidence();
    this.fallbackAgent = agents.fallbackAgent();
  }

  /** The agent a task goes to, and how it is stored ({@code Task.routing}). */
  record Route(String agent, Task.Routing routing) {}

  /** To the agent decided, or to the fallback agent, or empty: ask the person to clarify. */
  Optional<Route> route(Decision.NewTask decided) {
    if (decided.confidence() >= minConfidence) {
      return Optional.of(
          new Route(
              decided.agent(), new Task.Routing(decided.confidence(), decided.reason(), false)));
    }
    return fallbackAgent.map(
        agent -> new Route(agent, new Task.Routing(decided.confidence(), decided.reason(), true)));
  }
}
