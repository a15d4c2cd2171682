package dev.agentrt.toolrunner.calls;

import dev.agentrt.events.ToolCallRequested;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.ToolCall;
import dev.agentrt.toolrunner.tools.ErrorType;
import dev.agentrt.toolrunner.tools.ToolOutcome;
import dev.agentrt.toolrunner.tools.Toolbox;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Runs tool calls: claims one ({@code pending → running}, with a lease), executes it on a virtual
 * thread of its own within {@code agentrt.tools.timeout}, records the outcome, and answers it with
 * the tool message. The caller (a Kafka listener, the sweeper) gets control back as soon as the
 * claim is made, so a slow tool never holds up other conversations (DESIGN invariant 4). If this
 * worker dies on the way, the call's lease expires and {@link LeaseSweeper} takes it back.
 */
@Component
class ToolCallRunner implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(ToolCallRunner.class);

  private final ToolCalls calls;
  private final ToolMessages messages;
  private final Toolbox toolbox;
  private final Duration timeout;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final Counter executions;
  private final RunLedger ledger;

  ToolCallRunner(
      ToolCalls calls,
      ToolMessages messages,
      Toolbox toolbox,
      ToolCallProperties properties,
      MeterRegistry meters,
      RunLedger ledger) {
    this.ledger = ledger;
    this.calls = calls;
    this.messages = messages;
    this.toolbox = toolbox;
    this.timeout = properties.timeout();
    this.executions =
        Counter.builder("agentrt.tool.executions")
            .description("Tool executions started by this tool-runner")
            .register(meters);
  }

  /**
   * Claims the requested call and starts it in the background.
   *
   * @return whether this runner took the call; {@code false} when someone else has it, it is done,
   *     or it is not this service's to run (redelivery, a racing copy)
   */
  boolean onRequested(ToolCallRequested requested) {
    if (ToolCalls.HANDLED_ELSEWHERE.contains(requested.name())) {
      return false;
    }
    return calls.claim(requested.toolCallId()).map(this::start).isPresent();
  }

  /** Executes a call this worker holds the lease of, in the background. */
  ToolCall start(ToolCall claimed) {
    executor.execute(() -> runAndAnswer(claimed));
    return claimed;
  }

  /** Appends the tool message of a finished call this worker holds, in the background. */
  void startAnswer(ToolCall finished) {
    executor.execute(
        () -> {
          try {
            messages.answer(finished.id());
          } catch (RuntimeException e) {
            log.warn("could not answer tool call {}, will retry: {}", finished.id(), e.toString());
          }
        });
  }

  private void runAndAnswer(ToolCall call) {
    try {
      record(
          call,
          RunEvent.TOOL_CALL_START,
          RunLedger.data(
              "toolCallId",
              call.id(),
              "tool",
              call.name(),
              "arguments",
              RunLedger.excerpt(call.arguments())));
      long started = System.nanoTime();
      ToolOutcome outcome = execute(call);
      long latencyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      boolean stored = calls.record(call.id(), outcome, latencyMs);
      if (stored) {
        record(
            call,
            RunEvent.TOOL_CALL_RESULT,
            RunLedger.data(
                "toolCallId",
                call.id(),
                "tool",
                call.name(),
                "status",
                outcome instanceof ToolOutcome.Failure ? "failed" : "succeeded",
                "result",
                RunLedger.excerpt(outcome.json()),
                "errorType",
                outcome instanceof ToolOutcome.Failure f ? f.errorType().name() : null,
                "latencyMs",
                latencyMs));
      }
      log.info(
          "tool call {} ({}) {} in {} ms{}",
          call.id(),
          call.name(),
          outcome instanceof ToolOutcome.Failure f ? "failed: " + f.errorType() : "succeeded",
          latencyMs,
          stored ? "" : " (another worker had already recorded it)");
      messages.answer(call.id());
    } catch (RuntimeException e) {
      log.warn(
          "tool call {} ({}) unfinished, its lease will bring it back: {}",
          call.id(),
          call.name(),
          e.toString());
    }
  }

  private void record(ToolCall call, String type, Map<String, Object> data) {
    ledger.append(
        call.chatId(), type + "/" + call.id(), type, call.taskId(), call.subAgentId(), null, data);
  }

  private ToolOutcome execute(ToolCall call) {
    executions.increment();
    Future<ToolOutcome> running = executor.submit(() -> toolbox.run(call.name(), call.arguments()));
    try {
      return running.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      running.cancel(true);
      return new ToolOutcome.Failure(
          ErrorType.timeout, call.name() + " did not finish within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      return new ToolOutcome.Failure(ErrorType.tool_error, String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      running.cancel(true);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + call.name(), e);
    }
  }

  /** Stops running tools at shut-down; their leases expire and another worker finishes them. */
  @Override
  public void destroy() {
    executor.shutdownNow();
  }
}
