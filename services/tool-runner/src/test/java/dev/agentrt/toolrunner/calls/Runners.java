package dev.agentrt.toolrunner.calls;

import static org.awaitility.Awaitility.await;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.ToolCall;
import dev.agentrt.toolrunner.tools.Toolbox;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.springframework.data.mongodb.core.MongoTemplate;

/** A runner wired as the service wires it, over a test's store, and waiting for its answers. */
final class Runners {

  private static final EventCodec CODEC = new EventCodec();

  static ToolCallRunner runner(
      MongoTemplate mongo,
      EventPublisher published,
      AgentCatalog agents,
      ToolCallProperties properties,
      Toolbox toolbox) {
    ToolCalls calls = new ToolCalls(mongo, properties);
    ToolMessages messages =
        new ToolMessages(
            calls, new SubAgentConversations(mongo), new Outbox(published, mongo), CODEC);
    return new ToolCallRunner(
        calls,
        messages,
        toolbox,
        agents,
        properties,
        new SimpleMeterRegistry(),
        new RunLedger(mongo));
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
            c -> ToolCalls.finished(c) && c.leaseUntil() == null);
  }

  private Runners() {}
}
