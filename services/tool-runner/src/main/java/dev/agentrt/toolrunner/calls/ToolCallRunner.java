package dev.agentrt.toolrunner.calls;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.events.ToolCallRequested;
import dev.agentrt.model.GenAi;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.store.Leases;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StepStarts;
import dev.agentrt.store.ToolCall;
import dev.agentrt.toolrunner.tools.ErrorType;
import dev.agentrt.toolrunner.tools.RegisteredTool;
import dev.agentrt.toolrunner.tools.ToolOutcome;
import dev.agentrt.toolrunner.tools.Toolbox;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Runs tool calls: claims one ({@code pending → running}, held with {@link Leases}), checks that
 * the agent may call that tool, executes it on a virtual thread of its own within the tool's
 * timeout, records the outcome, and answers it with the tool message. The caller gets control back
 * as soon as the claim is queued (the Kafka listener, {@link #offer}) or made (the sweeper), so a
 * slow tool never holds up other conversations (DESIGN invariant 4), and the calls of one model
 * turn run at the same time. The hold is renewed while the work runs (the service's {@code
 * LeaseSweeper}); if this worker dies on the way, it expires and {@link ToolCallSweeper} takes the
 * call up: an idempotent tool runs again, any other ends {@code failed} with {@code interrupted}.
 *
 * <p>A cancelled task's running calls are stopped ({@link #cancel}): their worker is interrupted,
 * and the call ends {@code failed} with {@code cancelled}, without a retry.
 *
 * <p>Bounded: a call is claimed only while one of {@code agentrt.tools.max-concurrent-calls}
 * permits is free, so no claimed call waits for one; otherwise it stays {@code pending}, its id is
 * queued here, and each permit given back claims the next call queued ({@link #takeUpTurnedAway}):
 * a burst runs as fast as the bound lets it, in the order it came, not one sweep at a time. The
 * sweeper remains the backstop (a call whose runner stopped before it took the call up). A
 * transient failure of an idempotent tool is tried again ({@link ToolRetries}); a result is cut to
 * {@code agentrt.tools.max-result-size} ({@link ResultSizeCap}).
 */
@Component
class ToolCallRunner implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(ToolCallRunner.class);

  /** How long a stopping service waits for its workers before it lets go of their holds. */
  private static final Duration STOP_GRACE = Duration.ofSeconds(5);

  private final ToolCalls calls;
  private final Leases leases;
  private final ToolMessages messages;
  private final Toolbox toolbox;
  private final AgentCatalog agents;
  private final Duration defaultTimeout;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

  /**
   * A call's {@code tool_call_start}: with its result when the tool ends within {@code
   * agentrt.tools.start-shown-after}, else on its own once that time has passed.
   */
  private final StepStarts starts;

  private final Counter executions;
  private final RunLedger ledger;
  private final Semaphore permits;
  private final int maxCalls;
  private final ToolRetries retries;
  private final ResultSizeCap cap;
  private final ObservationRegistry observations;

  /** Whether the tool's arguments and result go on its span ({@link GenAi#CAPTURE_CONTENT}). */
  private final boolean captureContent;

  /**
   * The calls whose claim found no permit free, oldest first: each permit given back claims the
   * next. By id, so that the calls taken up are the ones turned away (taking any pending call
   * instead took calls whose own event was still coming, and left some turned away for the sweep).
   */
  private final Queue<String> turnedAway = new ConcurrentLinkedQueue<>();

  /** Calls held here whose task was cancelled: their worker ends them {@code cancelled}. */
  private final Set<String> cancelled = ConcurrentHashMap.newKeySet();

  ToolCallRunner(
      ToolCalls calls,
      ToolMessages messages,
      Toolbox toolbox,
      AgentCatalog agents,
      ToolCallProperties properties,
      MeterRegistry meters,
      ObservationRegistry observations,
      RunLedger ledger,
      @Value("${" + GenAi.CAPTURE_CONTENT + ":false}") boolean captureContent) {
    this.observations = observations;
    this.captureContent = captureContent;
    this.ledger = ledger;
    this.calls = calls;
    this.leases = calls.leases();
    this.messages = messages;
    this.toolbox = toolbox;
    this.agents = agents;
    this.defaultTimeout = properties.timeout();
    this.starts = new StepStarts(ledger, properties.startShownAfter(), "tool-start-timer");
    this.permits = new Semaphore(properties.maxConcurrentCalls());
    this.retries = new ToolRetries(properties.retry());
    this.cap = new ResultSizeCap(properties.maxResultSize().toBytes());
    this.executions =
        Counter.builder("agentrt.tool.executions")
            .description("Tool executions started by this tool-runner, retries included")
            .register(meters);
    this.maxCalls = properties.maxConcurrentCalls();
    Gauge.builder("agentrt.tool.calls.in-flight", this, ToolCallRunner::callsInFlight)
        .description("Tool calls this tool-runner holds a permit for (max-concurrent-calls)")
        .register(meters);
  }

  /** The state moves of the calls this runner runs, and its holds. */
  ToolCalls calls() {
    return calls;
  }

  /**
   * Claims the requested call and starts it in the background, without waiting for the claim: it
   * goes out with the claims and the calls' writes queued meanwhile ({@link ToolCalls#queueClaim}),
   * and the call starts once it is made. A claim that fails leaves the call pending, for the sweep
   * ({@code unclaimed-after}).
   *
   * @return whether this runner took the call, once that is known; {@code false} when someone else
   *     has it, it is done, it is not this service's to run (redelivery, a racing copy), no permit
   *     is free (it is queued: a permit given back claims it), or the claim failed
   */
  CompletableFuture<Boolean> offer(ToolCallRequested requested) {
    if (ToolCalls.HANDLED_ELSEWHERE.contains(requested.name())) {
      return CompletableFuture.completedFuture(false);
    }
    String id = requested.toolCallId();
    if (!permits.tryAcquire()) {
      turnedAway.add(id);
      log.debug("no permit free (agentrt.tools.max-concurrent-calls): {} queued", id);
      // A permit given back between the try and the queueing found nothing queued: take it.
      takeUpTurnedAway();
      return CompletableFuture.completedFuture(false);
    }
    CompletableFuture<Optional<ToolCall>> claim;
    try {
      claim = calls.queueClaim(requested);
    } catch (RuntimeException e) {
      givePermitBack();
      throw e;
    }
    // On a worker, in the trace of the event that asked for the call: the claim completes on a
    // writer's thread, which must not wait for a claim and has no trace of its own.
    return claim.handleAsync(
        (claimed, failure) -> {
          if (failure == null && claimed.isPresent()) {
            start(claimed.get());
            return true;
          }
          givePermitBack();
          if (failure != null) {
            log.warn(
                "could not claim tool call {}; the sweep takes it up: {}", id, failure.toString());
          }
          return false;
        },
        Context.current().wrap(executor));
  }

  /** {@link #offer}, waiting for the claim. */
  boolean onRequested(ToolCallRequested requested) {
    return BulkWrites.await(offer(requested));
  }

  /**
   * Makes the claim only if a permit is free, and keeps the permit for the claimed call; {@link
   * #start} or {@link #resume} gives it back when the call's work ends. With no permit free nothing
   * is claimed.
   */
  Optional<ToolCall> claimWithPermit(Supplier<Optional<ToolCall>> claim) {
    if (!permits.tryAcquire()) {
      log.debug("no permit free (agentrt.tools.max-concurrent-calls): nothing claimed");
      return Optional.empty();
    }
    return claimHoldingPermit(claim);
  }

  /** Makes the claim with a permit taken; gives the permit back unless a call was claimed. */
  private Optional<ToolCall> claimHoldingPermit(Supplier<Optional<ToolCall>> claim) {
    Optional<ToolCall> claimed;
    try {
      claimed = claim.get();
    } catch (RuntimeException e) {
      givePermitBack();
      throw e;
    }
    if (claimed.isEmpty()) {
      givePermitBack();
    }
    return claimed;
  }

  /** Calls holding a permit: being run, retried, recorded or answered. */
  int callsInFlight() {
    return maxCalls - permits.availablePermits();
  }

  /** Executes a call this worker holds and has a permit for, in the background. */
  void start(ToolCall claimed) {
    runHeld(claimed, true, () -> runAndAnswer(claimed));
  }

  /**
   * Goes on with a running call whose worker died (this worker now holds it and a permit): an
   * idempotent tool runs again; any other is not run twice, it fails with {@code interrupted}; a
   * call of a cancelled task ends {@code cancelled} without running.
   */
  void resume(ToolCall taken) {
    if (calls.taskCancelled(taken)) {
      runHeld(taken, true, () -> recordAndAnswer(taken, cancelledOutcome(taken), 0));
      return;
    }
    boolean idempotent = toolbox.find(taken.name()).map(RegisteredTool::idempotent).orElse(true);
    if (idempotent) {
      start(taken);
      return;
    }
    runHeld(
        taken,
        true,
        () ->
            recordAndAnswer(
                taken,
                new ToolOutcome.Failure(
                    ErrorType.interrupted,
                    taken.name()
                        + " was interrupted (its worker stopped) and is not safe to run twice;"
                        + " it may or may not have taken effect"),
                0));
  }

  /** Appends the tool message of a finished call this worker holds, in the background. */
  void startAnswer(ToolCall finished) {
    runHeld(
        finished,
        false,
        () -> {
          try {
            messages.answer(finished);
          } catch (RuntimeException e) {
            log.warn(
                "could not answer tool call {}; answered when its lease expires: {}",
                finished.id(),
                e.toString());
          }
        });
  }

  /**
   * Stops the task's calls running here: each is marked cancelled and its worker interrupted, and
   * the worker records it {@code failed} with {@code cancelled} (a worker not started yet does so
   * without running the tool).
   *
   * @return how many calls were stopped
   */
  int cancel(String taskId) {
    List<String> running = calls.runningHere(taskId);
    for (String id : running) {
      cancelled.add(id);
      leases.interrupt(id);
      log.info("tool call {} stopped: its task {} was cancelled", id, taskId);
    }
    return running.size();
  }

  /**
   * Runs the work of a call held here as the hold's worker (so a renewal keeps it, and {@link
   * #cancel} reaches it), and gives the permit back whatever happens. Work that ends without having
   * ended the hold (a write failed) stops renewing it: the lease expires and the sweeper takes the
   * call up again, the lease being the backoff. A stopping service lets go of its holds instead.
   */
  private void runHeld(ToolCall call, boolean withPermit, Runnable work) {
    AtomicBoolean handedOver = new AtomicBoolean();
    leases.run(
        call.id(),
        task -> {
          executor.execute(task);
          handedOver.set(true);
        },
        () -> {
          try {
            work.run();
          } finally {
            cancelled.remove(call.id());
            if (!executor.isShutdown()) {
              leases.abandon(call.id());
            }
            if (withPermit) {
              givePermitBack();
            }
          }
        });
    if (!handedOver.get() && withPermit) {
      givePermitBack(); // stopping (the hold was let go of), or the hold was lost meanwhile
    }
  }

  /** Gives a permit back, and with it runs the next call turned away for want of one, if any. */
  private void givePermitBack() {
    permits.release();
    takeUpTurnedAway();
  }

  /**
   * While calls are queued and a permit is free, claims the next queued call and starts it; a call
   * claimed meanwhile elsewhere (the sweeper, another runner) is skipped. Looking again after
   * giving a permit back covers a call queued while this held it. A claim that fails leaves its
   * call queued for the next permit given back.
   */
  private void takeUpTurnedAway() {
    while (!turnedAway.isEmpty() && !executor.isShutdown() && permits.tryAcquire()) {
      Optional<ToolCall> next = Optional.empty();
      String id = null;
      try {
        while (next.isEmpty() && (id = turnedAway.poll()) != null) {
          next = calls.claim(id);
        }
      } catch (RuntimeException e) {
        permits.release();
        if (id != null) {
          turnedAway.add(id);
        }
        log.warn("could not take up tool call {}: {}", id, e.toString());
        return;
      }
      if (next.isEmpty()) {
        permits.release();
      } else {
        start(next.get());
      }
    }
  }

  private void runAndAnswer(ToolCall call) {
    if (cancelled.remove(call.id())) { // cancelled before its worker started
      Thread.interrupted();
      recordAndAnswer(call, cancelledOutcome(call), 0);
      return;
    }
    long started = System.nanoTime();
    StepStarts.Start start =
        starts.begin(
            call.chatId(),
            step(
                call,
                RunEvent.TOOL_CALL_START,
                RunLedger.toolCall(call.id(), call.stepId(), call.name(), call.arguments())));
    ToolOutcome outcome = null;
    RuntimeException failure = null;
    try {
      Observation span = GenAi.executeTool(observations, call.name(), call.id(), call.chatId());
      outcome =
          span.observe(
              () -> {
                ToolOutcome result = execute(call);
                GenAi.toolOutcome(
                    span,
                    result instanceof ToolOutcome.Failure f ? f.errorType().name() : "success");
                if (captureContent) {
                  GenAi.toolContent(span, call.arguments(), result.json());
                }
                return result;
              });
    } catch (RuntimeException e) {
      failure = e;
    }
    if (cancelled.remove(call.id())) {
      Thread.interrupted(); // the interruption did its work: the writes below must not meet it
      if (outcome == null) {
        outcome = cancelledOutcome(call);
      }
    }
    if (outcome == null) {
      unfinished(call, failure); // its start is shown when its timer fires
      return;
    }
    recordAndAnswer(
        call, outcome, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), start);
  }

  private static ToolOutcome.Failure cancelledOutcome(ToolCall call) {
    return new ToolOutcome.Failure(
        ErrorType.cancelled, call.name() + " was stopped: its task was cancelled");
  }

  private void recordAndAnswer(ToolCall call, ToolOutcome result, long latencyMs) {
    recordAndAnswer(call, result, latencyMs, null);
  }

  /**
   * Records the outcome, its run event (with the call's start, when {@code start} is given and not
   * shown yet), and answers the call with its tool message.
   */
  private void recordAndAnswer(
      ToolCall call, ToolOutcome result, long latencyMs, StepStarts.@Nullable Start start) {
    ToolOutcome outcome = cap.apply(result);
    try {
      Optional<ToolCall> stored = calls.record(call, outcome, latencyMs);
      if (stored.isPresent()) {
        Map<String, Object> data =
            RunLedger.data(
                "toolCallId",
                call.id(),
                "stepId",
                call.stepId(),
                "tool",
                call.name(),
                "toolName",
                call.name(),
                "status",
                outcome instanceof ToolOutcome.Failure ? "failed" : "succeeded",
                "result",
                RunLedger.excerpt(outcome.json()),
                "errorType",
                outcome instanceof ToolOutcome.Failure f ? f.errorType().name() : null,
                "latencyMs",
                latencyMs);
        if (start == null) {
          ledger.append(call.chatId(), List.of(step(call, RunEvent.TOOL_CALL_RESULT, data)));
        } else {
          start.withEnd(List.of(step(call, RunEvent.TOOL_CALL_RESULT, data)));
        }
      }
      log.info(
          "tool call {} ({}) {} in {} ms{}",
          call.id(),
          call.name(),
          outcome instanceof ToolOutcome.Failure f ? "failed: " + f.errorType() : "succeeded",
          latencyMs,
          stored.isPresent() ? "" : " (another worker had already recorded it)");
      stored.ifPresentOrElse(messages::answer, () -> messages.answer(call.id()));
    } catch (RuntimeException e) {
      unfinished(call, e);
    }
  }

  /** A run event of this call (agent unknown here: null). */
  private static RunLedger.Step step(ToolCall call, String type, Map<String, Object> data) {
    return new RunLedger.Step(
        type + "/" + call.id(), type, call.taskId(), call.subAgentId(), null, data);
  }

  private static void unfinished(ToolCall call, RuntimeException e) {
    log.warn(
        "tool call {} ({}) unfinished, its lease will bring it back: {}",
        call.id(),
        call.name(),
        e.toString());
  }

  private ToolOutcome execute(ToolCall call) {
    ToolOutcome.Failure refused = refusal(call);
    if (refused != null) {
      return refused;
    }
    Optional<RegisteredTool> tool = toolbox.find(call.name());
    Duration timeout = tool.map(RegisteredTool::timeout).orElse(defaultTimeout);
    boolean idempotent = tool.map(RegisteredTool::idempotent).orElse(false);
    return retries.run(call.name(), idempotent, () -> executeOnce(call, timeout));
  }

  /** One attempt, within the tool's timeout; a timeout is transient. */
  private ToolOutcome executeOnce(ToolCall call, Duration timeout) {
    executions.increment();
    Future<ToolOutcome> running =
        executor.submit(() -> toolbox.run(call.name(), call.arguments(), call.id()));
    try {
      return running.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      running.cancel(true);
      return new ToolOutcome.Failure(
          ErrorType.timeout,
          call.name() + " did not finish within " + timeout.toMillis() + " ms",
          true);
    } catch (ExecutionException e) {
      return new ToolOutcome.Failure(ErrorType.tool_error, String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      running.cancel(true);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + call.name(), e);
    }
  }

  /** Why the call's agent may not call this tool, or null if it may. */
  private ToolOutcome.@Nullable Failure refusal(ToolCall call) {
    String agentName = calls.agentOf(call);
    AgentDefinition agent = agentName == null ? null : agents.find(agentName).orElse(null);
    if (agent == null) {
      return new ToolOutcome.Failure(
          ErrorType.not_allowed, "the calling agent '" + agentName + "' is not declared");
    }
    if (!ToolCatalog.allows(agent, call.name())) {
      return new ToolOutcome.Failure(
          ErrorType.not_allowed,
          "agent '"
              + agent.name()
              + "' may not call '"
              + call.name()
              + "'; its tools: "
              + String.join(", ", agent.tools()));
    }
    return null;
  }

  /**
   * Stops running tools at shut-down, then lets go of every hold, so another runner takes the calls
   * up at its next sweep instead of after their leases.
   */
  @Override
  public void destroy() {
    starts.close();
    executor.shutdownNow();
    try {
      executor.awaitTermination(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    leases.releaseAll();
  }
}
