package dev.agentrt.store;

/**
 * {@code created → running ⇄ waiting → success | failed | cancelled}. Constants are spelled as they
 * are stored and shown in the API.
 */
public enum TaskStatus {
  created,
  running,
  waiting,
  success,
  failed,
  cancelled
}
