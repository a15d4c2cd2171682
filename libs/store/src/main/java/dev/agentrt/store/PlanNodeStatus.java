package dev.agentrt.store;

/**
 * A plan node's status: {@code pending → running → success | failed | cancelled}, or {@code pending
 * → skipped} (a node it depends on did not succeed) or {@code pending → cancelled} (the plan was
 * cancelled before it started).
 */
public enum PlanNodeStatus {
  pending,
  running,
  success,
  failed,
  skipped,
  cancelled;

  /** Whether the node will not change any more. */
  public boolean ended() {
    return this != pending && this != running;
  }
}
