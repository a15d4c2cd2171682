package dev.agentrt.orchestrator.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.events.EventCodec;
import dev.agentrt.orchestrator.testing.Stored;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StoreIndexes;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskCancellation;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.testing.InMemoryMongo;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Cancelling a task on a real MongoDB-protocol server; the broker is away (the relay publishes).
 */
class TaskCancellationTest {

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  private TaskCancellation cancellation;
  private Stored stored;

  @BeforeAll
  static void startMongo() {
    database = InMemoryMongo.start();
    mongo = database.template();
  }

  @AfterAll
  static void stopMongo() {
    database.close();
  }

  @BeforeEach
  void fresh() {
    database.clear();
    new StoreIndexes(mongo).afterPropertiesSet();
    EventPublisher noBroker =
        new EventPublisher(null, "test") {
          @Override
          public CompletableFuture<?> send(OutboxEntry entry) {
            return CompletableFuture.failedFuture(new IllegalStateException("no broker"));
          }
        };
    cancellation =
        new TaskCancellation(
            mongo, new Outbox(noBroker, mongo), new EventCodec(), new RunLedger(mongo));
    stored = new Stored(mongo);
  }

  @Test
  void aRunningTaskIsCancelledOnceAndItsCallsThatNoToolRunnerStartedNeverStart() {
    stored.chat("chat-1", null);
    Stored.Started started =
        stored.startedTask("chat-1", "Research", TaskStatus.running, SubAgentStatus.active, null);
    SubAgent subAgent = started.subAgent();
    ToolCall pending = withStatus(stored.toolCall(subAgent, "c1", "search_docs", "{}"), "pending");
    ToolCall running = withStatus(stored.toolCall(subAgent, "c2", "search_docs", "{}"), "running");
    ToolCall awaiting =
        withStatus(stored.toolCall(subAgent, "c3", "write_note", "{}"), "awaiting_approval");

    assertThat(cancellation.cancel(started.task().id()))
        .isInstanceOf(TaskCancellation.Result.Cancelled.class);

    assertThat(mongo.findById(started.task().id(), Task.class).status())
        .isEqualTo(TaskStatus.cancelled);
    assertThat(mongo.findById(subAgent.id(), SubAgent.class).status())
        .isEqualTo(SubAgentStatus.cancelled);
    ToolCall dropped = mongo.findById(pending.id(), ToolCall.class);
    assertThat(dropped.status()).isEqualTo(ToolCallStatus.failed);
    assertThat(dropped.error()).contains("\"error_type\":\"cancelled\"");
    ToolCall rejected = mongo.findById(awaiting.id(), ToolCall.class);
    assertThat(rejected.status())
        .as("what awaited approval is rejected")
        .isEqualTo(ToolCallStatus.failed);
    assertThat(rejected.error()).contains("\"error_type\":\"rejected\"").contains("cancelled");
    assertThat(mongo.findById(running.id(), ToolCall.class).status())
        .as("a running call is left to the tool-runner running it, which stops it")
        .isEqualTo(ToolCallStatus.running);
    assertThat(new RunLedger(mongo).after("chat-1", 0, 10))
        .extracting(RunEvent::type)
        .containsExactly(RunEvent.RUN_END);

    assertThat(cancellation.cancel(started.task().id()))
        .isInstanceOf(TaskCancellation.Result.AlreadyEnded.class);
    assertThat(cancellation.cancel("no-such-task"))
        .isInstanceOf(TaskCancellation.Result.NotFound.class);
  }

  private ToolCall withStatus(ToolCall call, String status) {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(call.id())),
        new Update().set("status", status),
        ToolCall.class);
    return call;
  }
}
