package dev.agentrt.toolrunner.calls;

import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.ToolCall;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code tool_call_start} of a call being run. A tool that ends within {@code
 * agentrt.tools.start-shown-after} ({@link ToolCallProperties#startShownAfter}) has it recorded
 * with its result ({@link #withResult}): one position in the chat's ledger taken for both, one
 * insert; the result's {@code latencyMs} says how long the tool ran. A slower tool has it recorded
 * on its own once that time has passed ({@link #alone}), so a person watching sees it start; its
 * result then follows it. Either way the start comes before its result in the ledger, and is there
 * once. Like every event, it is stamped with the moment it is recorded: a reader of the ledger
 * judges by that how long a position before it has been taken.
 */
final class ToolStartEvent {

  /**
   * How long a result waits for its start's own record (the ledger gives up on an insert at 10 s).
   */
  private static final Duration START_WAIT = Duration.ofSeconds(15);

  private final RunLedger ledger;
  private final ToolCall call;
  private final RunLedger.Step start;
  private final AtomicBoolean taken = new AtomicBoolean();
  private final CompletableFuture<Void> recorded = new CompletableFuture<>();

  ToolStartEvent(RunLedger ledger, ToolCall call) {
    this.ledger = ledger;
    this.call = call;
    this.start =
        step(
            call,
            RunEvent.TOOL_CALL_START,
            RunLedger.toolCall(call.id(), call.stepId(), call.name(), call.arguments()));
  }

  /** Records the start on its own, unless it was recorded (or is being recorded) already. */
  void alone() {
    if (taken.compareAndSet(false, true)) {
      try {
        ledger.append(call.chatId(), List.of(start));
      } finally {
        recorded.complete(null);
      }
    }
  }

  /**
   * Records the call's result after its start: both together if the start is not recorded yet; else
   * once the start's own record is done.
   */
  void withResult(Map<String, Object> data) {
    RunLedger.Step result = step(call, RunEvent.TOOL_CALL_RESULT, data);
    if (taken.compareAndSet(false, true)) {
      ledger.append(call.chatId(), List.of(start, result));
      recorded.complete(null);
      return;
    }
    try {
      recorded.get(START_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // the start was not recorded in time: the result goes on its own all the same
    }
    ledger.append(call.chatId(), List.of(result));
  }

  /** A run event of this call (agent unknown here: null). */
  static RunLedger.Step step(ToolCall call, String type, Map<String, Object> data) {
    return new RunLedger.Step(
        type + "/" + call.id(), type, call.taskId(), call.subAgentId(), null, data);
  }
}
