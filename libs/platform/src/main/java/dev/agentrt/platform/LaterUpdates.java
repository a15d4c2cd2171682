package dev.agentrt.platform;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Updates and deletes of one document each ({@link BulkWrites.Plain}) whose writers do not wait for
 * them: each is made within about {@code linger} of being queued, with all those queued meanwhile,
 * handed to the shared {@link BulkWrites} together (one unordered bulk write per collection, with
 * the other writes queued then): under load, many in one round trip where each would have had a
 * share of one. Only for writes whose loss something else makes good (an outbox's entries are
 * published again by the relay; a hold that is never ended, or a finished piece of work's document
 * never removed, expires and is swept, and the sweep finds the work done): a failed one is handed
 * to its {@code failed} callback, and a process that dies before the linger is over loses what it
 * queued. {@link #close} makes those still queued.
 */
public final class LaterUpdates implements AutoCloseable {

  private record Later(BulkWrites.Plain write, Consumer<Throwable> failed) {}

  private final BulkWrites writes;
  private final GroupCommit<Later, Void> later;

  /**
   * @param name the writer thread's name
   */
  public LaterUpdates(BulkWrites writes, String name, Duration linger) {
    this.writes = writes;
    this.later = new GroupCommit<>(name, BulkWrites.BATCH, this::writeAll, linger, true);
  }

  /**
   * Queues the update or delete; {@code failed} is told why, if it is not made (a delete or update
   * that matches nothing is made).
   */
  public void queue(BulkWrites.Plain write, Consumer<Throwable> failed) {
    later
        .submit(new Later(write, failed))
        .whenComplete(
            (done, failure) -> {
              if (failure != null) {
                failed.accept(failure);
              }
            });
  }

  private List<Void> writeAll(List<Later> batch) {
    List<CompletableFuture<Void>> written =
        writes.queuePlain(batch.stream().map(Later::write).toList());
    for (int i = 0; i < batch.size(); i++) {
      try {
        BulkWrites.await(written.get(i));
      } catch (RuntimeException e) {
        batch.get(i).failed().accept(e);
      }
    }
    return Collections.nCopies(batch.size(), null);
  }

  /** Makes the writes still queued. */
  @Override
  public void close() {
    later.close();
  }
}
