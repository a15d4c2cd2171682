package dev.agentrt.store;

/**
 * {@code pending → running → success | failed}; a call of a tool that needs a person's yes starts
 * {@code awaiting_approval} and becomes {@code pending} (approved) or {@code failed} (rejected).
 * Constants are spelled as they are stored and shown in the API.
 */
public enum ToolCallStatus {
  awaiting_approval,
  pending,
  running,
  success,
  failed
}
