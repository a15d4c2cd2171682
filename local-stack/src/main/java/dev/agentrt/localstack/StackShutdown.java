package dev.agentrt.localstack;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

/**
 * Stops what the launcher started: first all services at once (each gracefully, forced after 15 s),
 * then Kafka and MongoDB in reverse start order.
 */
final class StackShutdown {

  private final List<ServiceProcess> services = new ArrayList<>();
  private final Deque<AutoCloseable> infrastructure = new ArrayDeque<>();
  private boolean inProgress;

  /**
   * Registers Kafka or MongoDB, running in this JVM, to be closed. If a shutdown already runs, it
   * is closed at once.
   */
  <T extends AutoCloseable> T infrastructure(T part) {
    synchronized (this) {
      if (!inProgress) {
        infrastructure.push(part);
        return part;
      }
    }
    try {
      part.close();
    } catch (Exception e) {
      // shutting down anyway
    }
    throw new LaunchException("shutting down");
  }

  /**
   * Starts a service and registers it to be closed, excluding a concurrent shutdown so that no
   * child process is left behind.
   */
  synchronized ServiceProcess startService(Supplier<ServiceProcess> start) {
    return startServices(() -> List.of(start.get())).getFirst();
  }

  /** As {@link #startService}, for services started together (in one JVM). */
  synchronized List<ServiceProcess> startServices(Supplier<List<ServiceProcess>> start) {
    if (inProgress) {
      throw new LaunchException("shutting down");
    }
    List<ServiceProcess> started = start.get();
    services.addAll(started);
    return started;
  }

  synchronized boolean inProgress() {
    return inProgress;
  }

  /** Stops everything registered; later calls do nothing. */
  void run() {
    List<ServiceProcess> runningServices;
    List<AutoCloseable> runningInfrastructure;
    synchronized (this) {
      if (inProgress) {
        return;
      }
      inProgress = true;
      runningServices = List.copyOf(services);
      runningInfrastructure = List.copyOf(infrastructure);
    }
    if (runningServices.isEmpty() && runningInfrastructure.isEmpty()) {
      return;
    }
    System.out.println(
        runningServices.stream().anyMatch(ServiceProcess::writesStartUpCache)
            ? "stopping… (writing a start-up cache for the next start: once after a build, up"
                + " to a minute)"
            : "stopping…");
    ServiceProcess.closeAll(runningServices);
    for (AutoCloseable part : runningInfrastructure) {
      try {
        part.close();
      } catch (Exception e) {
        System.err.println("error: stopping " + part.getClass().getSimpleName() + ": " + e);
      }
    }
    System.out.println("stopped");
  }
}
