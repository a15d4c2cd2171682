package dev.agentrt.store;

/**
 * {@code pending → running → success | failed}. Constants are spelled as they are stored and shown
 * in the API.
 */
public enum ToolCallStatus {
  pending,
  running,
  success,
  failed
}
