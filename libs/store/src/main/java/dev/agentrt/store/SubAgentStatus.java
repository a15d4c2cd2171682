package dev.agentrt.store;

/**
 * {@code active ⇄ waiting_for_user → completed | failed | cancelled}; a follow-up turns {@code
 * completed} back to {@code active}. Constants are spelled as they are stored and shown in the API.
 */
public enum SubAgentStatus {
  active,
  waiting_for_user,
  completed,
  failed,
  cancelled
}
