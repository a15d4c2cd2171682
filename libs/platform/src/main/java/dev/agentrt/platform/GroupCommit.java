package dev.agentrt.platform;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Metrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Writes the items of many callers together: a group commit. Its one writer takes everything
 * queued, writes it with one call of {@code write}, and meanwhile the next items queue up; so at
 * low load each item is written at once, and under load one write carries many (up to {@code
 * maxBatch} submissions) and the round trips per item fall as load rises. No item waits for a
 * timer, unless the group commit is made with a {@code linger}: then its writer, woken by an item,
 * waits that long for more before it writes (for items whose callers do not wait for them).
 *
 * <p>Each caller gets a future of its own item's result; a write that throws fails the futures of
 * its batch. {@link #close} writes what was queued before it.
 *
 * <p>How many items each write carried is served as {@code agentrt.group-commit.items}, tagged with
 * the writer's name, in Micrometer's global registry (a Spring Boot service's own registry is part
 * of it): its count is the writes, its total the items, so that a benchmark sees how much batching
 * a load bought rather than inferring it from commands per step.
 *
 * @param <T> what callers hand in
 * @param <R> what the write says of each item
 */
public final class GroupCommit<T, R> implements AutoCloseable {

  /** Items handed in together, and the future of what the write says of each. */
  private record Queued<T, R>(List<T> items, CompletableFuture<List<R>> results) {}

  private final Function<List<T>, List<R>> write;
  private final int maxBatch;
  private final Duration linger;
  private final DistributionSummary itemsPerWrite;
  private final BlockingQueue<Queued<T, R>> queue = new LinkedBlockingQueue<>();
  private final Queued<T, R> close = new Queued<>(List.of(), new CompletableFuture<>());
  private final Thread writer;
  private volatile boolean closed;

  /** Opened by {@link #close}: a writer lingering writes at once. */
  private final CountDownLatch closing = new CountDownLatch(1);

  /**
   * @param name the writer thread's name
   * @param write writes a batch and returns what it says of each item, in the batch's order
   * @param start whether the writer starts now; else at {@link #start} (tests queue first)
   */
  public GroupCommit(String name, int maxBatch, Function<List<T>, List<R>> write, boolean start) {
    this(name, maxBatch, write, Duration.ZERO, start);
  }

  /**
   * @param linger how long the writer, woken by an item, waits for more before it writes
   */
  public GroupCommit(
      String name, int maxBatch, Function<List<T>, List<R>> write, Duration linger, boolean start) {
    this.write = write;
    this.maxBatch = maxBatch;
    this.linger = linger;
    this.itemsPerWrite =
        DistributionSummary.builder("agentrt.group-commit.items")
            .description("Items one write of a group commit carried")
            .baseUnit("items")
            .tag("writer", name)
            .register(Metrics.globalRegistry);
    // A virtual thread: handing items to it and back costs far less than to a platform thread
    // (the bench's warm-up, same build otherwise: 21–25 ms of CPU per step with a virtual writer,
    // 32–40 with a platform one), and it costs nothing while it waits, so an instance a test never
    // closes leaves nothing behind that matters.
    this.writer = Thread.ofVirtual().name(name).unstarted(this::writeAll);
    if (start) {
      writer.start();
    }
  }

  public GroupCommit(String name, int maxBatch, Function<List<T>, List<R>> write) {
    this(name, maxBatch, write, true);
  }

  /** Starts a writer created unstarted. */
  public void start() {
    writer.start();
  }

  /**
   * Queues an item; the future completes once its batch is written. After {@link #close} it fails
   * at once.
   */
  public CompletableFuture<R> submit(T item) {
    return submitAll(List.of(item)).thenApply(List::getFirst);
  }

  /**
   * Queues items that go out in the same batch; the future completes once it is written, with what
   * the write says of each, in order. After {@link #close} it fails at once.
   */
  public CompletableFuture<List<R>> submitAll(List<T> items) {
    if (closed) {
      return CompletableFuture.failedFuture(
          new IllegalStateException(writer.getName() + " closed"));
    }
    Queued<T, R> queued = new Queued<>(List.copyOf(items), new CompletableFuture<>());
    queue.add(queued);
    return queued.results();
  }

  private void writeAll() {
    List<Queued<T, R>> batch = new ArrayList<>();
    boolean stop = false;
    while (!stop) {
      try {
        batch.add(queue.take());
        if (!linger.isZero() && batch.getFirst() != close) {
          closing.await(linger.toMillis(), TimeUnit.MILLISECONDS); // woken early by close()
        }
      } catch (InterruptedException e) {
        return;
      }
      queue.drainTo(batch, maxBatch - 1);
      stop = batch.removeIf(q -> q == close);
      write(batch);
      batch.clear();
    }
    queue.drainTo(batch);
    for (int from = 0; from < batch.size(); from += maxBatch) {
      write(batch.subList(from, Math.min(batch.size(), from + maxBatch)));
    }
  }

  private void write(List<Queued<T, R>> batch) {
    if (batch.isEmpty()) {
      return;
    }
    List<T> items = batch.stream().flatMap(q -> q.items().stream()).toList();
    itemsPerWrite.record(items.size());
    try {
      List<R> results = write.apply(items);
      int from = 0;
      for (Queued<T, R> queued : batch) {
        int to = from + queued.items().size();
        queued.results().complete(new ArrayList<>(results.subList(from, to))); // may hold nulls
        from = to;
      }
    } catch (RuntimeException e) {
      batch.forEach(q -> q.results().completeExceptionally(e));
    }
  }

  /** Stops the writer once it has written what was queued before. */
  @Override
  public void close() {
    closed = true;
    queue.add(close);
    closing.countDown();
    if (writer.isAlive()) {
      try {
        writer.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
