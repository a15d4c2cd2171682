package dev.agentrt.model;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One model with at most so many calls in flight; further calls wait for a permit, in arrival
 * order, so a burst of turns cannot open more connections than the provider (or this process) can
 * carry. The wait is interruptible and is reported to {@link PermitWait}, so {@link ModelRetries}
 * counts it against the caller's deadline, not against the attempt's timeout: the provider's time
 * starts once the permit is held.
 */
final class BoundedModel implements ModelPort {

  private final String name;
  private final ModelPort model;
  private final int maxConcurrentCalls;
  private final Semaphore permits;

  BoundedModel(String name, ModelPort model, int maxConcurrentCalls) {
    if (maxConcurrentCalls < 1) {
      throw new IllegalArgumentException("maxConcurrentCalls must be at least 1");
    }
    this.name = name;
    this.model = model;
    this.maxConcurrentCalls = maxConcurrentCalls;
    this.permits = new Semaphore(maxConcurrentCalls, true);
  }

  /**
   * @throws ModelException not transient, with the interrupt flag kept, when interrupted while
   *     waiting for a permit
   */
  @Override
  public ModelReply complete(ModelRequest request) {
    acquire();
    try {
      return model.complete(request);
    } finally {
      permits.release();
    }
  }

  /** Calls waiting for a permit now. */
  int waiting() {
    return permits.getQueueLength();
  }

  /** Calls holding a permit now. */
  int inFlight() {
    return maxConcurrentCalls - permits.availablePermits();
  }

  private void acquire() {
    try {
      // tryAcquire(0, …) keeps the arrival order that tryAcquire() would barge past.
      if (permits.tryAcquire(0, TimeUnit.NANOSECONDS)) {
        return;
      }
      PermitWait.begin();
      try {
        permits.acquire();
      } finally {
        PermitWait.end();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ModelException(
          "model "
              + name
              + ": interrupted while waiting for one of its "
              + maxConcurrentCalls
              + " call slots",
          false,
          e);
    }
  }
}
