package dev.agentrt.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The starts of steps that mostly end at once, a model turn's {@code step_start} and a tool call's
 * {@code tool_call_start}, recorded in the chat's ledger without an insert of their own when they
 * can be. A step that ends within {@code shownAfter} has its start recorded with its end ({@link
 * Start#withEnd}): one append, one insert, consecutive positions. A slower step has its start
 * recorded on its own once that time has passed, on a virtual thread of its own, so a person
 * watching sees it start; its end then follows it. A step that ends without an end to record (it
 * failed, was stopped or dropped) has its start recorded on its own then ({@link Start#alone}).
 * Either way the start comes before its end in the ledger, and is there once. Like every event, it
 * is stamped with the moment it is recorded: a reader of the ledger judges by that how long a
 * position before it has been taken; the end says how long the step took.
 */
public final class StepStarts implements AutoCloseable {

  /**
   * How long an end waits for its start's own record (the ledger gives up on an insert at 10 s).
   */
  private static final Duration START_WAIT = Duration.ofSeconds(15);

  private final RunLedger ledger;
  private final Duration shownAfter;
  private final ThreadFactory recorders;

  /** One thread for every step's timer; a timer cancelled leaves its queue at once. */
  private final ScheduledThreadPoolExecutor timers;

  /**
   * @param shownAfter how long a step runs before its start is recorded on its own (0: at once)
   * @param name the timer thread's name, and the prefix of the threads that record starts alone
   */
  public StepStarts(RunLedger ledger, Duration shownAfter, String name) {
    if (shownAfter.isNegative()) {
      throw new IllegalArgumentException("shownAfter must not be negative, not " + shownAfter);
    }
    this.ledger = ledger;
    this.shownAfter = shownAfter;
    this.recorders = Thread.ofVirtual().name(name + "-shown-", 0).factory();
    this.timers =
        new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon(true).name(name).factory());
    timers.setRemoveOnCancelPolicy(true);
  }

  /**
   * A step of the chat begins now: its start is recorded on its own after {@code shownAfter} (at
   * once, here, when that is 0) unless its end comes first.
   */
  public Start begin(String chatId, RunLedger.Step start) {
    Start begun = new Start(chatId, start);
    if (shownAfter.isZero()) {
      begun.alone();
      return begun;
    }
    try {
      begun.timer =
          timers.schedule(
              () -> recorders.newThread(begun::alone).start(),
              shownAfter.toMillis(),
              TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopping) {
      // the service stops: the end, if it comes, brings the start with it
    }
    return begun;
  }

  /** Drops the timers of the starts not recorded yet: their ends bring them, if they come. */
  @Override
  public void close() {
    timers.shutdownNow();
  }

  /** A step's start, recorded once: on its own, or with the step's end. */
  public final class Start {

    private final String chatId;
    private final RunLedger.Step start;
    private final AtomicBoolean taken = new AtomicBoolean();
    private final CompletableFuture<Void> recorded = new CompletableFuture<>();
    private volatile @Nullable ScheduledFuture<?> timer;

    private Start(String chatId, RunLedger.Step start) {
      this.chatId = chatId;
      this.start = start;
    }

    /** Records the start on its own, unless it was recorded (or is being recorded) already. */
    public void alone() {
      if (taken.compareAndSet(false, true)) {
        cancelTimer();
        try {
          ledger.append(chatId, List.of(start));
        } finally {
          recorded.complete(null);
        }
      }
    }

    /** {@link #withEnd(List, Map)} adding no counts. */
    public void withEnd(List<RunLedger.Step> end) {
      withEnd(end, Map.of());
    }

    /**
     * Records the step's end after its start: both in one append if the start is not recorded yet;
     * else once the start's own record is done. {@code counts} go to the chat's counters as {@link
     * RunLedger#append(String, List, Map)} adds them.
     */
    public void withEnd(List<RunLedger.Step> end, Map<String, Long> counts) {
      if (taken.compareAndSet(false, true)) {
        cancelTimer();
        List<RunLedger.Step> both = new ArrayList<>(end.size() + 1);
        both.add(start);
        both.addAll(end);
        try {
          ledger.append(chatId, both, counts);
        } finally {
          recorded.complete(null);
        }
        return;
      }
      try {
        recorded.get(START_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        // the start was not recorded in time: the end goes on its own all the same
      }
      ledger.append(chatId, end, counts);
    }

    private void cancelTimer() {
      ScheduledFuture<?> pending = timer;
      if (pending != null) {
        pending.cancel(false);
      }
    }
  }
}
