package dev.agentrt.testing;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Virtual threads, one per task, as the services hand their slow work to, counting the threads
 * started: a test sees at once, without waiting, whether the code under test started work.
 */
public final class CountingThreads {

  private final AtomicInteger started = new AtomicInteger();
  private final ThreadFactory virtual = Thread.ofVirtual().factory();

  /** An executor starting a virtual thread per task; its threads are counted here. */
  public ExecutorService executor() {
    return Executors.newThreadPerTaskExecutor(
        task -> {
          started.incrementAndGet();
          return virtual.newThread(task);
        });
  }

  /** The threads the executors started so far. */
  public int started() {
    return started.get();
  }
}
