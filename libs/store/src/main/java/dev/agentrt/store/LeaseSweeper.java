package dev.agentrt.store;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The one sweeper of a service's leased work: every {@link LeaseProperties#renewEvery} it renews
 * the holds of each kind of {@link LeasedWork} (the heartbeat), then has each take up what expired.
 * As a lifecycle bean it stops before any bean is destroyed, so a stopping service renews nothing
 * it is letting go of.
 */
public final class LeaseSweeper implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(LeaseSweeper.class);

  private final List<LeasedWork> work;
  private final LeaseProperties properties;
  private @Nullable ScheduledExecutorService scheduler;

  public LeaseSweeper(List<LeasedWork> work, LeaseProperties properties) {
    this.work = List.copyOf(work);
    this.properties = properties;
  }

  /** One round: every kind's holds renewed first, then every kind swept. */
  public void sweep() {
    for (LeasedWork kind : work) {
      try {
        kind.leases().renew();
      } catch (RuntimeException e) {
        log.warn("renewing the holds of {} failed: {}", name(kind), e.toString());
      }
    }
    for (LeasedWork kind : work) {
      try {
        kind.sweep();
      } catch (RuntimeException e) {
        log.warn("sweeping {} failed, the next sweep tries again: {}", name(kind), e.toString());
      }
    }
  }

  @Override
  public synchronized void start() {
    if (work.isEmpty() || scheduler != null) {
      return;
    }
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("lease-sweeper").daemon().factory());
    long every = properties.renewEvery().toMillis();
    scheduler.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void stop() {
    if (scheduler != null) {
      scheduler.shutdownNow();
      try {
        scheduler.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      scheduler = null;
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return scheduler != null;
  }

  private static String name(LeasedWork kind) {
    return kind.getClass().getSimpleName();
  }
}
