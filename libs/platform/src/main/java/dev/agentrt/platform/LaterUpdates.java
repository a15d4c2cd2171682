package dev.agentrt.platform;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Updates whose writers do not wait for them: each is made within about {@code linger} of being
 * queued, with all those queued meanwhile, handed to the shared {@link BulkWrites} together (one
 * unordered bulk update per collection, with the other updates queued then): under load, many in
 * one round trip where each would have had a share of one. Only for writes whose loss something
 * else makes good (an outbox's entries are published again by the relay; a hold that is never ended
 * expires and is swept): a failed one is handed to its {@code failed} callback, and a process that
 * dies before the linger is over loses what it queued. {@link #close} makes those still queued.
 */
public final class LaterUpdates implements AutoCloseable {

  private record Later(BulkWrites.Update update, Consumer<Throwable> failed) {}

  private final BulkWrites writes;
  private final GroupCommit<Later, Void> later;

  /**
   * @param name the writer thread's name
   */
  public LaterUpdates(BulkWrites writes, String name, Duration linger) {
    this.writes = writes;
    this.later = new GroupCommit<>(name, BulkWrites.BATCH, this::writeAll, linger, true);
  }

  /** Queues the update; {@code failed} is told why, if it is not made. */
  public void queue(BulkWrites.Update update, Consumer<Throwable> failed) {
    later
        .submit(new Later(update, failed))
        .whenComplete(
            (done, failure) -> {
              if (failure != null) {
                failed.accept(failure);
              }
            });
  }

  private List<Void> writeAll(List<Later> batch) {
    List<CompletableFuture<Void>> written =
        writes.queueUpdates(batch.stream().map(Later::update).toList());
    for (int i = 0; i < batch.size(); i++) {
      try {
        BulkWrites.await(written.get(i));
      } catch (RuntimeException e) {
        batch.get(i).failed().accept(e);
      }
    }
    return Collections.nCopies(batch.size(), null);
  }

  /** Makes the updates still queued. */
  @Override
  public void close() {
    later.close();
  }
}
