package dev.agentrt.orchestrator.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.events.EventCodec;
import dev.agentrt.orchestrator.testing.Approvals;
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
import java.util.List;
import java.util.Map;
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
          public CompletableFuture<?> send(OutboxEntry entry, Map<String, String> headers) {
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
        .containsExactly(RunEvent.APPROVAL_DECIDED, RunEvent.RUN_END);

    assertThat(cancellation.cancel(started.task().id()))
        .isInstanceOf(TaskCancellation.Result.AlreadyEnded.class);
    assertThat(new RunLedger(mongo).after("chat-1", 0, 10)).as("nothing recorded twice").hasSize(2);
    assertThat(cancellation.cancel("no-such-task"))
        .isInstanceOf(TaskCancellation.Result.NotFound.class);
  }

  @Test
  void aCallAwaitingApprovalIsRejectedByTheCancellationWithItsApprovalDecidedOnce() {
    stored.chat("chat-1", null);
    Stored.Started started =
        stored.startedTask(
            "chat-1", "Save a note", TaskStatus.waiting, SubAgentStatus.active, null);
    ToolCall awaiting =
        withStatus(
            stored.toolCall(started.subAgent(), "c1", "write_note", "{}"), "awaiting_approval");

    cancellation.cancel(started.task().id());
    cancellation.cancel(started.task().id());

    List<RunEvent> decided =
        new RunLedger(mongo)
            .after("chat-1", 0, 10).stream()
                .filter(e -> e.type().equals(RunEvent.APPROVAL_DECIDED))
                .toList();
    assertThat(decided).hasSize(1);
    assertThat(decided.getFirst().taskId()).isEqualTo(started.task().id());
    assertThat(decided.getFirst().data())
        .containsEntry("toolCallId", awaiting.id())
        .containsEntry("tool", "write_note")
        .containsEntry("approved", false)
        .containsEntry("by", "cancellation")
        .containsEntry("reason", "cancelled")
        .containsKey("at");
    org.bson.Document decision =
        mongo
            .getCollection("sub_agent_tool_calls")
            .find(new org.bson.Document("_id", awaiting.id()))
            .first()
            .get(ToolCall.DECISION, org.bson.Document.class);
    assertThat(decision).containsEntry("approved", false).containsEntry("by", "cancellation");
    assertThat(
            Approvals.withoutBroker(mongo).decide("chat-1", awaiting.id(), true, null, "someone"))
        .as("a person's decision after the cancellation's")
        .isInstanceOf(ToolCallApprovals.Outcome.NotAwaiting.class);
  }

  private ToolCall withStatus(ToolCall call, String status) {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(call.id())),
        new Update().set("status", status),
        ToolCall.class);
    return call;
  }
}
