package dev.agentrt.store;

/**
 * A plan's status: {@code running → success | partial | failed | cancelled}. {@code partial}: some
 * of its sinks (nodes no other node depends on) succeeded, not all.
 */
public enum PlanStatus {
  running,
  success,
  partial,
  failed,
  cancelled
}
