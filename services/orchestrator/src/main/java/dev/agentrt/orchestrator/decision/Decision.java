package dev.agentrt.orchestrator.decision;

/**
 * What the orchestrator does with a person's message: the three actions of the decision schema
 * ({@code decision-schema.json}). A closed type, so every handler covers all three.
 */
sealed interface Decision {

  /** Answer the person directly. */
  record Answer(String answer) implements Decision {}

  /** Put an agent on a new task. */
  record NewTask(String agent, String instruction) implements Decision {}

  /** Send a follow-up to the sub-agent of an earlier task of the chat. */
  record Reactivate(String subAgentId, String message) implements Decision {}
}
