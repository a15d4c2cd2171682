package dev.agentrt.finalizer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.events.TaskFailed;
import dev.agentrt.model.offline.OfflineModel;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskEventIds;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.UnreachableBroker;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;

/**
 * A failed task goes once to the fallback agent, on a real MongoDB-protocol server; a fallback task
 * that fails ends the run as routing_exhausted; runs stopped by their limits, children,
 * cancellations and a catalog without a fallback are left alone.
 */
class ReroutesTest {

  private static final String CHAT = "chat-1";
  private static final EventCodec CODEC = new EventCodec();

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  private Reroutes reroutes;

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
    mongo.insert(new Chat(CHAT, "test", Instant.now()));
    reroutes = reroutes(AgentCatalog.fromClasspath("agents.yml"));
  }

  @Test
  void aFailedTaskGoesOnceToTheFallbackAgentWithTheSameInstruction() {
    Task failed = task("task-1", "researcher", TaskStatus.failed, routing(false), null);

    assertThat(reroutes.reroute(failure(failed))).isTrue();
    assertThat(reroutes.reroute(failure(failed))).as("the outcome redelivered").isTrue();

    Task rerouted = mongo.findById(Task.rerouteId(failed.id()), Task.class);
    assertThat(mongo.findAll(Task.class)).hasSize(2);
    assertThat(rerouted.agent()).isEqualTo("assistant");
    assertThat(rerouted.instruction()).isEqualTo(failed.instruction());
    assertThat(rerouted.chatId()).isEqualTo(CHAT);
    assertThat(rerouted.status()).isEqualTo(TaskStatus.created);
    assertThat(rerouted.routing())
        .isEqualTo(new Task.Routing(0.9, "the researcher failed: no documents", true));
    assertThat(rerouted.outbox())
        .singleElement()
        .satisfies(
            e ->
                assertThat(CODEC.decode(e.ceType(), e.payload().getBytes(StandardCharsets.UTF_8)))
                    .isInstanceOfSatisfying(
                        TaskCreated.class,
                        created -> {
                          assertThat(created.eventId())
                              .isEqualTo(TaskEventIds.created(rerouted.id()));
                          assertThat(created.agent()).isEqualTo("assistant");
                        }));
    assertThat(ledger(RunEvent.REROUTE)).hasSize(1);
  }

  @Test
  void aFallbackTaskThatFailsEndsAsRoutingExhaustedAndTheAnswerSaysSo() {
    Task failed = task("task-1", "researcher", TaskStatus.failed, routing(false), null);
    reroutes.reroute(failure(failed));
    Task fallback = mongo.findById(Task.rerouteId(failed.id()), Task.class);
    mongo.save(task(fallback.id(), "assistant", TaskStatus.failed, fallback.routing(), null));

    TaskOutcome outcome = failure(fallback);
    assertThat(reroutes.reroute(outcome)).isFalse();
    assertThat(reroutes.reroute(outcome)).isFalse();

    assertThat(mongo.findAll(Task.class)).hasSize(2);
    assertThat(ledger(RunEvent.ROUTING_EXHAUSTED)).hasSize(1);
    ChatMessage answer = answers().write(outcome);
    assertThat(answer.content())
        .contains("routing_exhausted")
        .contains("the assistant was the last agent to try");
  }

  @Test
  void aLowConfidenceTaskOfTheFallbackAgentIsNotReroutedAgain() {
    Task failed = task("task-1", "assistant", TaskStatus.failed, routing(true), null);

    assertThat(reroutes.reroute(failure(failed))).isFalse();

    assertThat(mongo.findAll(Task.class)).hasSize(1);
    assertThat(answers().write(failure(failed)).content()).contains("routing_exhausted");
  }

  @Test
  void childTasksCancelledTasksAndTheFallbacksOwnTaskAreNotRerouted() {
    Task child =
        task(
            "child",
            "researcher",
            TaskStatus.failed,
            null,
            new Task.Delegation("parent", "sub-parent", "parent", 1, "call-1", "m-1", null));
    Task cancelled = task("cancelled", "researcher", TaskStatus.cancelled, routing(false), null);
    Task chosen = task("chosen", "assistant", TaskStatus.failed, routing(false), null);

    assertThat(reroutes.reroute(failure(child))).isFalse();
    assertThat(reroutes.reroute(failure(cancelled))).isFalse();
    assertThat(reroutes.reroute(failure(chosen))).isFalse();
    assertThat(reroutes.reroute(new TaskOutcome.Succeeded("e-ok", chosen.id(), CHAT, "Done.")))
        .isFalse();

    assertThat(mongo.findAll(Task.class)).hasSize(3);
  }

  @Test
  void withoutAFallbackAgentAFailedTaskStaysFailed() {
    reroutes =
        reroutes(
            AgentCatalog.read(
                new ByteArrayInputStream(
                    """
                    agents:
                      - name: researcher
                        description: Researches.
                        systemPrompt: You research.
                    """
                        .getBytes(StandardCharsets.UTF_8)),
                "test agents"));
    Task failed = task("task-1", "researcher", TaskStatus.failed, routing(false), null);

    assertThat(reroutes.reroute(failure(failed))).isFalse();

    assertThat(mongo.findAll(Task.class)).hasSize(1);
  }

  @Test
  void aRunStoppedByItsOwnLimitsIsNotReroutedAndItsFailureIsTheAnswer() {
    for (String limit :
        List.of(
            TaskFailed.STEP_LIMIT_EXCEEDED,
            TaskFailed.BUDGET_EXCEEDED,
            TaskFailed.TIMEOUT,
            TaskFailed.STAGNATED)) {
      Task stopped =
          task("task-" + limit, "researcher", TaskStatus.failed, routing(false), null, limit);

      assertThat(reroutes.reroute(failure(stopped))).as(limit).isFalse();

      assertThat(
              mongo.exists(
                  Query.query(Criteria.where("_id").is(Task.rerouteId(stopped.id()))), Task.class))
          .as(limit)
          .isFalse();
      assertThat(answers().write(failure(stopped)).content())
          .as(limit)
          .contains("the researcher could not finish")
          .doesNotContain("routing_exhausted");
    }
    assertThat(ledger(RunEvent.REROUTE)).isEmpty();
  }

  @Test
  void aFallbackTaskStoppedByALimitEndsByThatLimitNotAsRoutingExhausted() {
    Task stopped =
        task(
            "task-1",
            "assistant",
            TaskStatus.failed,
            routing(true),
            null,
            TaskFailed.BUDGET_EXCEEDED);

    assertThat(reroutes.reroute(failure(stopped))).isFalse();

    assertThat(ledger(RunEvent.ROUTING_EXHAUSTED)).isEmpty();
    assertThat(answers().write(failure(stopped)).content()).doesNotContain("routing_exhausted");
  }

  // --- fixtures -----------------------------------------------------------------------------

  private static Reroutes reroutes(AgentCatalog agents) {
    return new Reroutes(
        mongo,
        new BulkWrites(mongo),
        agents,
        UnreachableBroker.outbox(mongo),
        CODEC,
        new RunLedger(mongo));
  }

  private static FinalAnswers answers() {
    return new FinalAnswers(
        mongo,
        new BulkWrites(mongo),
        new OfflineModel(),
        CODEC,
        new FinalizerProperties(
            6, 1, Duration.ZERO, Duration.ofSeconds(30), Duration.ofSeconds(60)),
        new UsageCounter(mongo),
        new RunLedger(mongo));
  }

  private static Task.Routing routing(boolean fallback) {
    return new Task.Routing(0.9, "It asks for research.", fallback);
  }

  private static Task task(
      String id,
      String agent,
      TaskStatus status,
      Task.@Nullable Routing routing,
      Task.@Nullable Delegation delegation) {
    return task(
        id, agent, status, routing, delegation, status == TaskStatus.failed ? "model_error" : null);
  }

  private static Task task(
      String id,
      String agent,
      TaskStatus status,
      Task.@Nullable Routing routing,
      Task.@Nullable Delegation delegation,
      @Nullable String failureReason) {
    Instant now = Instant.now();
    return mongo.save(
        new Task(
            id,
            CHAT,
            Task.TYPE_AGENT,
            agent,
            "Research the weather",
            null,
            status,
            null,
            null,
            status == TaskStatus.failed ? "no documents" : null,
            null,
            now,
            now,
            List.of(),
            delegation,
            now,
            now,
            routing,
            failureReason));
  }

  private static TaskOutcome failure(Task task) {
    return new TaskOutcome.Failed("failed-" + task.id(), task.id(), CHAT, "no documents");
  }

  private static List<RunEvent> ledger(String type) {
    return mongo.find(Query.query(Criteria.where("type").is(type)), RunEvent.class);
  }
}
