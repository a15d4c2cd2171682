package dev.agentrt.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The start event of a step that may end at once: a model turn, a tool call. A step whose work ends
 * within {@code shownAfter} ({@link #ended}) has its start recorded with its end ({@link
 * #withEnd}): one take of positions in the chat's ledger for both, one insert command, and nothing
 * written before the step begins its work. A slower step has its start recorded on its own once
 * that time has passed, on a thread of its own ({@link #now}), so a person watching sees it start
 * while it runs; its end then follows it. Either way the start comes before its end in the ledger,
 * and is there once. Like every event it is stamped with the moment it is recorded: the end's
 * {@code latencyMs} says how long the step took.
 */
public final class DeferredStart {

  /**
   * How long an end waits for its start's own record (the ledger gives up on an insert at 10 s).
   */
  private static final Duration START_WAIT = Duration.ofSeconds(15);

  /**
   * One thread for the timers of every step in the process; a timer cancelled (its step ended
   * first, as most do) leaves the queue at once rather than waking the thread when it would fire.
   */
  private static final ScheduledThreadPoolExecutor TIMERS = timers();

  private final RunLedger ledger;
  private final String chatId;
  private final RunLedger.Step start;
  private final AtomicBoolean taken = new AtomicBoolean();
  private final CompletableFuture<Void> recorded = new CompletableFuture<>();
  private volatile @Nullable ScheduledFuture<?> timer;

  private DeferredStart(RunLedger ledger, String chatId, RunLedger.Step start) {
    this.ledger = ledger;
    this.chatId = chatId;
    this.start = start;
  }

  /**
   * The start of a step beginning now: recorded with its end, or on its own once the step has run
   * for {@code shownAfter} (at once, on this thread, when that is zero).
   */
  public static DeferredStart of(
      RunLedger ledger, String chatId, RunLedger.Step start, Duration shownAfter) {
    DeferredStart deferred = new DeferredStart(ledger, chatId, start);
    if (shownAfter.isZero()) {
      deferred.now();
    } else {
      deferred.timer =
          TIMERS.schedule(
              () -> Thread.ofVirtual().name("step-start").start(deferred::now),
              shownAfter.toMillis(),
              TimeUnit.MILLISECONDS);
    }
    return deferred;
  }

  /** Records the start on its own, unless it was recorded, is being recorded, or was dropped. */
  public void now() {
    if (take()) {
      try {
        ledger.append(chatId, List.of(start));
      } finally {
        recorded.complete(null);
      }
    }
  }

  /**
   * The step's work is done (the model answered, the tool returned) and its end is recorded next
   * ({@link #withEnd}): the start is no longer shown on its own, however long writing what the step
   * did takes. A start already being shown stays so.
   */
  public void ended() {
    ScheduledFuture<?> pending = timer;
    if (pending != null) {
      pending.cancel(false);
    }
  }

  /**
   * Records the step's {@code ends} after its start, adding {@code counts} to the chat's counters
   * in the same write ({@link RunLedger#append(String, List, Map)}): with the start if it is not
   * recorded yet; else once the start's own record is done.
   */
  public void withEnd(List<RunLedger.Step> ends, Map<String, Long> counts) {
    if (take()) {
      List<RunLedger.Step> both = new ArrayList<>(1 + ends.size());
      both.add(start);
      both.addAll(ends);
      ledger.append(chatId, both, counts);
      recorded.complete(null);
      return;
    }
    try {
      recorded.get(START_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // the start was not recorded in time: the end goes on its own all the same
    }
    ledger.append(chatId, ends, counts);
  }

  /**
   * The step stopped before it did anything worth showing (it is taken again, or its run ended
   * meanwhile): its start is not recorded, unless it was already.
   */
  public void drop() {
    if (take()) {
      recorded.complete(null);
    }
  }

  /** Whether this caller is the one to record the start (or drop it); stops the timer if so. */
  private boolean take() {
    if (!taken.compareAndSet(false, true)) {
      return false;
    }
    ScheduledFuture<?> pending = timer;
    if (pending != null) {
      pending.cancel(false);
    }
    return true;
  }

  private static ScheduledThreadPoolExecutor timers() {
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(
            1, Thread.ofPlatform().daemon(true).name("step-start-timer").factory());
    timers.setRemoveOnCancelPolicy(true);
    return timers;
  }
}
