package dev.agentrt.toolrunner.calls;

import static org.awaitility.Awaitility.await;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.LaterUpdates;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.ToolCall;
import dev.agentrt.toolrunner.tools.Toolbox;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import org.springframework.data.mongodb.core.MongoTemplate;

/** A runner wired as the service wires it, over a test's store, and waiting for its answers. */
final class Runners {

  private static final EventCodec CODEC = new EventCodec();

  /** The lease the service has by default ({@code agentrt.leases.duration}). */
  static final Duration LEASE = Duration.ofSeconds(30);

  static ToolCallRunner runner(
      MongoTemplate mongo,
      EventPublisher published,
      AgentCatalog agents,
      ToolCallProperties properties,
      Toolbox toolbox) {
    return runner(mongo, published, agents, properties, toolbox, LEASE);
  }

  /**
   * A runner, a tool-runner instance of its own (its own holder), holding calls for {@code lease}.
   */
  static ToolCallRunner runner(
      MongoTemplate mongo,
      EventPublisher published,
      AgentCatalog agents,
      ToolCallProperties properties,
      Toolbox toolbox,
      Duration lease) {
    return runner(
        mongo, published, agents, properties, toolbox, lease, ObservationRegistry.NOOP, false);
  }

  /** A runner whose calls are observed in {@code observations}, with their contents or not. */
  static ToolCallRunner runner(
      MongoTemplate mongo,
      EventPublisher published,
      AgentCatalog agents,
      ToolCallProperties properties,
      Toolbox toolbox,
      Duration lease,
      ObservationRegistry observations,
      boolean captureContent) {
    return runner(
        calls(mongo, properties, lease),
        mongo,
        published,
        agents,
        properties,
        toolbox,
        observations,
        captureContent);
  }

  /** The state moves of a runner's calls, as the service makes them, holding calls for a lease. */
  static ToolCalls calls(MongoTemplate mongo, ToolCallProperties properties, Duration lease) {
    BulkWrites writes = new BulkWrites(mongo);
    return new ToolCalls(
        mongo,
        writes,
        properties,
        ToolCallConfiguration.toolCallLeases(mongo, writes, lease),
        later(writes));
  }

  /** The updates a runner makes later, as the service's ({@code agentrt.outbox.removal-delay}). */
  static LaterUpdates later(BulkWrites writes) {
    return new LaterUpdates(writes, "later-updates", Duration.ofMillis(100));
  }

  /** A runner making its calls' state moves with {@code calls} (a test's, which it may watch). */
  static ToolCallRunner runner(
      ToolCalls calls,
      MongoTemplate mongo,
      EventPublisher published,
      AgentCatalog agents,
      ToolCallProperties properties,
      Toolbox toolbox,
      ObservationRegistry observations,
      boolean captureContent) {
    RunLedger ledger = new RunLedger(mongo);
    ToolMessages messages =
        new ToolMessages(
            calls, new SubAgentConversations(mongo), new Outbox(published, mongo), CODEC, ledger);
    return new ToolCallRunner(
        calls,
        messages,
        toolbox,
        agents,
        properties,
        new SimpleMeterRegistry(),
        observations,
        ledger,
        captureContent);
  }

  /** The sweeper of the runner's instance: it takes calls up for that runner, with its holds. */
  static ToolCallSweeper sweeper(ToolCallRunner runner) {
    return new ToolCallSweeper(runner.calls(), runner);
  }

  /** Waits until the call is finished and its tool message appended (its lease cleared). */
  static ToolCall awaitAnswered(MongoTemplate mongo, ToolCall call) {
    return awaitAnswered(mongo, call, Duration.ofSeconds(10));
  }

  static ToolCall awaitAnswered(MongoTemplate mongo, ToolCall call, Duration atMost) {
    return await()
        .atMost(atMost)
        .until(
            () -> mongo.findById(call.id(), ToolCall.class),
            c -> ToolCalls.finished(c) && c.lease() == null);
  }

  private Runners() {}
}
