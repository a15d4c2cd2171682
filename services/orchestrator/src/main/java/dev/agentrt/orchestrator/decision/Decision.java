package dev.agentrt.orchestrator.decision;

import java.util.List;

/**
 * What the orchestrator does with a person's message: the four actions of the decision schema
 * ({@code decision-schema.json}, with the plan's branch from the schemas module's {@code
 * schemas/decisions/plan.json}). A closed type, so every handler covers all four. An action that
 * puts agents to work says how sure the model is of it ({@code confidence}, 0–1) and why ({@code
 * reason}); both are stored with its tasks ({@code Task.routing}).
 */
sealed interface Decision {

  /** Answer the person directly. */
  record Answer(String answer) implements Decision {}

  /** Put an agent on a new task. */
  record NewTask(String agent, String instruction, double confidence, String reason)
      implements Decision {}

  /** Send a follow-up to the sub-agent of an earlier task of the chat. */
  record Reactivate(String subAgentId, String message, double confidence, String reason)
      implements Decision {}

  /** Run a graph of agent tasks: each node starts once the nodes it depends on have succeeded. */
  record Plan(List<Node> nodes, double confidence, String reason) implements Decision {

    /** One agent's task in the plan. */
    record Node(String id, String agent, String instruction, List<String> dependsOn) {}
  }
}
