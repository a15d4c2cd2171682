package dev.agentrt.toolrunner.calls;

import dev.agentrt.events.ToolCallRequested;
import dev.agentrt.store.Ids;
import dev.agentrt.store.Lease;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** Stored state as the agent loop leaves it: a sub-agent and its tool calls. */
final class ToolCallFixtures {

  static SubAgent subAgent() {
    return subAgent("researcher");
  }

  static SubAgent subAgent(String agent) {
    Instant now = now();
    return new SubAgent(
        Ids.fresh(), Ids.fresh(), Ids.fresh(), agent, SubAgentStatus.active, 2, null, now, now);
  }

  /** A call just inserted by the agent loop, before its event was published. */
  static ToolCall pending(SubAgent subAgent, String name, String arguments) {
    return call(subAgent, name, arguments, ToolCallStatus.pending, null, now());
  }

  /** A call pending for a minute, longer than {@code unclaimedAfter}: no event claimed it. */
  static ToolCall unclaimed(SubAgent subAgent, String name, String arguments) {
    return call(subAgent, name, arguments, ToolCallStatus.pending, null, now().minusSeconds(60));
  }

  /** Who holds the calls this fixture stores with a lease: not any runner of the test. */
  static final String ANOTHER_RUNNER = "another-runner";

  /**
   * A call as stored; with {@code leaseUntil}, held by {@link #ANOTHER_RUNNER} until then (a dead
   * runner, once it has passed).
   */
  static ToolCall call(
      SubAgent subAgent,
      String name,
      String arguments,
      ToolCallStatus status,
      @Nullable Instant leaseUntil,
      Instant createdAt) {
    String modelCallId = "call_" + UUID.randomUUID().toString().substring(24);
    return new ToolCall(
        Ids.derived(subAgent.id(), modelCallId),
        subAgent.id(),
        subAgent.taskId(),
        subAgent.chatId(),
        subAgent.agent(),
        modelCallId,
        name,
        arguments,
        status,
        null,
        null,
        null,
        leaseUntil == null ? null : new Lease(ANOTHER_RUNNER, leaseUntil),
        createdAt,
        createdAt,
        List.of());
  }

  /** The call naming another agent; null: as stored before tool calls named their agent. */
  static ToolCall namingAgent(ToolCall call, @Nullable String agent) {
    return new ToolCall(
        call.id(),
        call.subAgentId(),
        call.taskId(),
        call.chatId(),
        agent,
        call.modelCallId(),
        call.name(),
        call.arguments(),
        call.status(),
        call.result(),
        call.error(),
        call.latencyMs(),
        call.lease(),
        call.createdAt(),
        call.updatedAt(),
        call.outbox());
  }

  static ToolCall finished(ToolCall call, ToolCallStatus status, String json, Instant leaseUntil) {
    return new ToolCall(
        call.id(),
        call.subAgentId(),
        call.taskId(),
        call.chatId(),
        call.agent(),
        call.modelCallId(),
        call.name(),
        call.arguments(),
        status,
        status == ToolCallStatus.success ? json : null,
        status == ToolCallStatus.failed ? json : null,
        12L,
        new Lease(ANOTHER_RUNNER, leaseUntil),
        call.createdAt(),
        call.updatedAt(),
        List.of());
  }

  /** The call's event as the agent loop publishes it: carrying the call as recorded. */
  static ToolCallRequested requested(ToolCall call) {
    return call.requested(call.createdAt());
  }

  /** The call's event as published before events carried the call: its ids and name only. */
  static ToolCallRequested requestedWithoutTheCall(ToolCall call) {
    return new ToolCallRequested(
        Ids.derived(call.id(), "requested"),
        call.createdAt(),
        call.id(),
        call.subAgentId(),
        call.taskId(),
        call.chatId(),
        call.name());
  }

  /** Now, at the millisecond precision MongoDB stores. */
  static Instant now() {
    return Instant.now().truncatedTo(ChronoUnit.MILLIS);
  }

  private ToolCallFixtures() {}
}
