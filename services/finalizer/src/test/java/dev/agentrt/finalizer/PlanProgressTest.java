package dev.agentrt.finalizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.agentrt.events.EventCodec;
import dev.agentrt.model.offline.OfflineModel;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Ids;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.Plan;
import dev.agentrt.store.PlanNode;
import dev.agentrt.store.PlanNodeStatus;
import dev.agentrt.store.PlanStatus;
import dev.agentrt.store.Plans;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.CountingThreads;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.UnreachableBroker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Plans moved on by their nodes' task outcomes on a real MongoDB-protocol server: ready nodes start
 * together, a node gets its dependencies' results, a failure skips exactly its dependents, nothing
 * starts twice, and the ended plan gets one answer.
 */
class PlanProgressTest {

  private static final String CHAT = "chat-1";
  private static final LeaseProperties LEASES =
      new LeaseProperties(Duration.ofSeconds(20), Duration.ofSeconds(5));

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  private final List<ChatMessage> published = new CopyOnWriteArrayList<>();

  /** The threads each test's finalizers write answers on: stopped before the next test clears. */
  private final List<ExecutorService> writers = new CopyOnWriteArrayList<>();

  private Plans plans;
  private PlanProgress progress;

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
    plans = plans();
    progress = progress(plans);
  }

  /**
   * Waits for the answers a test left being written (a plan it ended without waiting for its
   * answer): written after the next test cleared the database, one would take a ledger position
   * that test's events then collide with.
   */
  @AfterEach
  void waitForAnswersBeingWritten() throws InterruptedException {
    for (ExecutorService executor : writers) {
      executor.shutdown();
      assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void readyNodesStartTogetherAndANodeStartsOnlyOnceAllItsDependenciesSucceededWithTheirResults() {
    Plan plan =
        start(node("r1", "Research Kafka"), node("r2", "Research Redis"), writer("r1", "r2"));

    assertThat(statuses(plan.id()))
        .containsExactly(PlanNodeStatus.running, PlanNodeStatus.running, PlanNodeStatus.pending);
    assertThat(plan.node("r1").orElseThrow().startedAt())
        .as("started by one write")
        .isEqualTo(plan.node("r2").orElseThrow().startedAt());
    succeed(plan, "r1", "Kafka is a log.\n\nSources: docs/kafka.md");
    assertThat(statuses(plan.id()))
        .containsExactly(PlanNodeStatus.success, PlanNodeStatus.running, PlanNodeStatus.pending);
    assertThat(mongo.findById(Plans.taskId(plan.id(), "w"), Task.class)).isNull();

    succeed(plan, "r2", "Redis is a cache.");

    Plan after = plans.find(plan.id()).orElseThrow();
    PlanNode writer = after.node("w").orElseThrow();
    assertThat(writer.status()).isEqualTo(PlanNodeStatus.running);
    assertThat(writer.startedAt())
        .isAfterOrEqualTo(after.node("r1").orElseThrow().endedAt())
        .isAfterOrEqualTo(after.node("r2").orElseThrow().endedAt());
    Task task = mongo.findById(writer.taskId(), Task.class);
    assertThat(task.agent()).isEqualTo("writer");
    assertThat(task.instruction())
        .startsWith("Write a report on Kafka and Redis\n\n" + Plans.RESULTS_HEADING)
        .contains("## r1 (researcher): Research Kafka\n\nKafka is a log.\n\nSources: docs/kafka.md")
        .contains("## r2 (researcher): Research Redis\n\nRedis is a cache.");
    assertThat(task.outbox()).as("its TaskCreated, for the relay").hasSize(1);
  }

  @Test
  void theLastNodesEndAnswersThePlanOnceWithItsOnlySinksResult() {
    Plan plan = start(node("r1", "Research Kafka"), writer("r1"));
    succeed(plan, "r1", "Kafka is a log.");

    succeed(plan, "w", "# Report\n\n## Kafka\n\nKafka is a log.");
    succeed(plan, "w", "# Report\n\n## Kafka\n\nKafka is a log.");

    await().until(() -> plans.find(plan.id()).orElseThrow().answerId() != null);
    Plan ended = plans.find(plan.id()).orElseThrow();
    assertThat(ended.status()).isEqualTo(PlanStatus.success);
    assertThat(ended.endedAt()).isNotNull();
    ChatMessage answer = mongo.findById(ended.answerId(), ChatMessage.class);
    assertThat(answer.content()).isEqualTo("# Report\n\n## Kafka\n\nKafka is a log.");
    assertThat(answer.taskId()).isEqualTo(Plans.taskId(plan.id(), "w"));
    assertThat(published).extracting(ChatMessage::id).containsExactly(answer.id());
    assertThat(ledger(RunEvent.PLAN_END)).hasSize(1);
  }

  @Test
  void aFailedNodeSkipsExactlyItsDependentsAndIndependentBranchesGoOn() {
    Plan plan =
        start(
            node("a", "Research Kafka"),
            node("b", "Research Kafka's log", "a"),
            node("c", "Summarise", "b"),
            node("d", "Research Redis"));

    fail(plan, "a", "step_limit_exceeded");

    Plan after = plans.find(plan.id()).orElseThrow();
    assertThat(after.nodes())
        .extracting(PlanNode::id, PlanNode::status, PlanNode::skippedBecause)
        .containsExactly(
            tuple("a", PlanNodeStatus.failed, null),
            tuple("b", PlanNodeStatus.skipped, "a"),
            tuple("c", PlanNodeStatus.skipped, "a"),
            tuple("d", PlanNodeStatus.running, null));
    assertThat(after.status()).isEqualTo(PlanStatus.running);
    assertThat(mongo.findById(Plans.taskId(plan.id(), "b"), Task.class)).isNull();
    assertThat(ledger(RunEvent.PLAN_NODE_SKIPPED)).hasSize(2);

    succeed(plan, "d", "Redis is a cache.");

    await().until(() -> plans.find(plan.id()).orElseThrow().answerId() != null);
    Plan ended = plans.find(plan.id()).orElseThrow();
    assertThat(ended.status())
        .as("the sink d succeeded, the sink c did not")
        .isEqualTo(PlanStatus.partial);
    assertThat(mongo.findById(ended.answerId(), ChatMessage.class).content())
        .contains("## d (researcher)\n\nRedis is a cache.")
        .contains("Not done:")
        .contains("- a (researcher): failed: step_limit_exceeded")
        .contains("- c (researcher): skipped: node 'a' did not succeed");
  }

  @Test
  void twoFinalizersGivenTheSameOutcomesAtOnceStartEveryNodeOnce() throws Exception {
    Plan plan =
        start(node("r1", "Research Kafka"), node("r2", "Research Redis"), writer("r1", "r2"));
    end(plan, "r1", TaskStatus.success, "Kafka.", null);
    end(plan, "r2", TaskStatus.success, "Redis.", null);
    PlanProgress other = progress(plans());
    CyclicBarrier together = new CyclicBarrier(4);
    ExecutorService threads = Executors.newFixedThreadPool(4);
    List<Future<Boolean>> advanced = new ArrayList<>();
    for (PlanProgress finalizer : List.of(progress, other, progress, other)) {
      advanced.add(
          threads.submit(
              () -> {
                together.await();
                return finalizer.advance(outcome(plan, "r1", "Kafka."), task(plan, "r1"));
              }));
    }
    for (Future<Boolean> f : advanced) {
      assertThat(f.get()).isTrue();
    }
    threads.shutdown();

    assertThat(mongo.findAll(Task.class)).hasSize(3);
    assertThat(mongo.findById(Plans.taskId(plan.id(), "w"), Task.class).outbox()).hasSize(1);
    assertThat(ledger(RunEvent.PLAN_NODE_STARTED)).hasSize(3);
    assertThat(ledger(RunEvent.PLAN_NODE_ENDED)).hasSize(2);
  }

  @Test
  void aNodeMarkedRunningWhoseTaskACrashLeftUninsertedIsStartedByTheSweep() {
    Plan plan = start(node("r1", "Research Kafka"), writer("r1"));
    end(plan, "r1", TaskStatus.success, "Kafka.", null);
    // the finalizer recorded r1's end and marked w running, then died before inserting w's task
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(plan.id())),
        new Update()
            .set("nodes.0.status", PlanNodeStatus.success)
            .set("nodes.0.result", "Kafka.")
            .set("nodes.1.status", PlanNodeStatus.running)
            .set("updatedAt", Instant.now().minusSeconds(60)),
        Plan.class);

    progress.sweep();

    Task writer = mongo.findById(Plans.taskId(plan.id(), "w"), Task.class);
    assertThat(writer).isNotNull();
    assertThat(writer.instruction()).contains("Kafka.");
  }

  @Test
  void aNodeTaskStoredAfterItsPlanWasCancelledIsCancelledBeforeItRuns() {
    Plan plan = start(node("r1", "Research Kafka"), writer("r1"));
    end(plan, "r1", TaskStatus.success, "Kafka.", null);
    // w was marked running; the plan's cancel came before w's task was stored, so it found no
    // task to cancel
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(plan.id())),
        new Update()
            .set("nodes.0.status", PlanNodeStatus.success)
            .set("nodes.0.result", "Kafka.")
            .set("nodes.1.status", PlanNodeStatus.running)
            .set("cancelRequested", true)
            .set("updatedAt", Instant.now().minusSeconds(60)),
        Plan.class);

    progress.sweep();

    Task writer = mongo.findById(Plans.taskId(plan.id(), "w"), Task.class);
    assertThat(writer.status()).isEqualTo(TaskStatus.cancelled);
  }

  @Test
  void anEndedPlanWhoseAnswerNobodyWritesIsAnsweredByTheSweep() {
    Plan plan = start(node("r1", "Research Kafka"));
    end(plan, "r1", TaskStatus.success, "Kafka is a log.", null);
    plans.advance(plan.id()); // ended by another finalizer, which died before answering

    progress.sweep();

    await().until(() -> plans.find(plan.id()).orElseThrow().answerId() != null);
    assertThat(mongo.findById(PlanBrief.answerId(plan.id()), ChatMessage.class).content())
        .isEqualTo("Kafka is a log.");
  }

  @Test
  void aTaskThatIsNoPlansNodeIsLeftToTheChat() {
    assertThat(
            progress.advance(
                new TaskOutcome.Succeeded("event-1", "some-task", CHAT, "A result."), null))
        .isFalse();
  }

  @Test
  void aPlansNodeTaskSaysSoAndATaskThatSaysItIsNoneHasNoPlanLookedUp() {
    Plan plan = start(node("r1", "Research Kafka"), writer("r1"));
    assertThat(task(plan, "r1").planNode()).isTrue();
    end(plan, "r1", TaskStatus.success, "Kafka.", null);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(Plans.taskId(plan.id(), "r1"))),
        new Update().set("planNode", false),
        Task.class);

    assertThat(progress.advance(outcome(plan, "r1", "Kafka."), task(plan, "r1")))
        .as("taken at its word: no plan looked up")
        .isFalse();
    assertThat(mongo.findById(Plans.taskId(plan.id(), "w"), Task.class)).isNull();

    assertThat(progress.advance(outcome(plan, "r1", "Kafka."), null))
        .as("not read: the plan is looked up")
        .isTrue();
    assertThat(mongo.findById(Plans.taskId(plan.id(), "w"), Task.class)).isNotNull();
  }

  // --- plans and their tasks ---

  private Plan start(PlanNode... nodes) {
    String planId = Ids.derived("message-" + nodes.length, "plan");
    List<PlanNode> pending = new ArrayList<>();
    for (PlanNode n : nodes) {
      pending.add(PlanNode.pending(planId, n.id(), n.agent(), n.instruction(), n.dependsOn()));
    }
    plans.create(
        Plan.start(
            planId,
            CHAT,
            "message",
            "Write a report on Kafka and Redis",
            null,
            pending,
            Instant.now()));
    return plans.advance(planId).orElseThrow();
  }

  private static PlanNode node(String id, String instruction, String... dependsOn) {
    return PlanNode.pending("", id, "researcher", instruction, List.of(dependsOn));
  }

  private static PlanNode writer(String... dependsOn) {
    return PlanNode.pending(
        "", "w", "writer", "Write a report on Kafka and Redis", List.of(dependsOn));
  }

  /** The node's task succeeded (as agent-loop records it) and its event reached the finalizer. */
  private void succeed(Plan plan, String node, String result) {
    end(plan, node, TaskStatus.success, result, null);
    progress.advance(outcome(plan, node, result), task(plan, node));
  }

  /** The node's task as the finalizer reads it before it moves the plan on. */
  private static Task task(Plan plan, String node) {
    return mongo.findById(Plans.taskId(plan.id(), node), Task.class);
  }

  private void fail(Plan plan, String node, String error) {
    end(plan, node, TaskStatus.failed, null, error);
    progress.advance(
        new TaskOutcome.Failed("failed-" + node, Plans.taskId(plan.id(), node), CHAT, error),
        task(plan, node));
  }

  private static TaskOutcome outcome(Plan plan, String node, String result) {
    return new TaskOutcome.Succeeded(
        "completed-" + node, Plans.taskId(plan.id(), node), CHAT, result);
  }

  private static void end(Plan plan, String node, TaskStatus status, String result, String error) {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(Plans.taskId(plan.id(), node))),
        new Update()
            .set("status", status)
            .set("result", result)
            .set("error", error)
            .set("endedAt", Instant.now()),
        Task.class);
  }

  private List<PlanNodeStatus> statuses(String planId) {
    return plans.find(planId).orElseThrow().nodes().stream().map(PlanNode::status).toList();
  }

  private static List<RunEvent> ledger(String type) {
    return mongo.find(Query.query(Criteria.where("type").is(type)), RunEvent.class);
  }

  private static Plans plans() {
    return new Plans(
        mongo,
        new BulkWrites(mongo),
        UnreachableBroker.outbox(mongo),
        new EventCodec(),
        new RunLedger(mongo));
  }

  private ExecutorService answerWriters() {
    ExecutorService executor = new CountingThreads().executor();
    writers.add(executor);
    return executor;
  }

  private PlanProgress progress(Plans plans) {
    FinalAnswers answers =
        new FinalAnswers(
            mongo,
            new BulkWrites(mongo),
            new OfflineModel(),
            new EventCodec(),
            new FinalizerProperties(
                6, 1, Duration.ZERO, Duration.ofSeconds(30), Duration.ofSeconds(60)),
            new UsageCounter(mongo),
            new RunLedger(mongo));
    return new PlanProgress(
        mongo, plans, answers, published::add, answerWriters(), Duration.ofSeconds(10), LEASES);
  }
}
