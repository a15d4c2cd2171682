package dev.agentrt.finalizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCompleted;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.LaterUpdates;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.DelegationReplies;
import dev.agentrt.store.Ids;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.Plan;
import dev.agentrt.store.PlanNode;
import dev.agentrt.store.PlanNodeStatus;
import dev.agentrt.store.Plans;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.CountingThreads;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.MongoCommands;
import dev.agentrt.testing.ScriptedModel;
import dev.agentrt.testing.UnreachableBroker;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
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
 * The sweep that answers ended tasks whose outcome event was lost, on a real MongoDB-protocol
 * server: each kind of end is answered once, under the id its event would have given the answer,
 * and the event coming late writes nothing more.
 */
class MissingAnswerSweepTest {

  private static final String CHAT = "chat-1";

  private static final MongoCommands COMMANDS = new MongoCommands();

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  private final List<String> modelCalls = new CopyOnWriteArrayList<>();
  private LaterUpdates later;
  private PendingAnswers pending;
  private MissingAnswerSweep sweep;

  @BeforeAll
  static void startMongo() {
    database = InMemoryMongo.start(COMMANDS);
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
    FinalAnswers answers =
        new FinalAnswers(
            mongo,
            new BulkWrites(mongo),
            this::model,
            new EventCodec(),
            new FinalizerProperties(
                6, 1, Duration.ZERO, Duration.ofSeconds(30), Duration.ofSeconds(60)),
            new UsageCounter(mongo),
            new RunLedger(mongo));
    later = new LaterUpdates(new BulkWrites(mongo), "later-updates", Duration.ofMillis(100));
    pending =
        new PendingAnswers(
            mongo,
            answers,
            (outcome, task) -> false,
            answer -> {},
            new CountingThreads().executor(),
            new LeaseProperties(Duration.ofSeconds(20), Duration.ofSeconds(5)),
            later);
    sweep =
        new MissingAnswerSweep(
            mongo,
            pending,
            new Plans(
                mongo,
                new BulkWrites(mongo),
                UnreachableBroker.outbox(mongo),
                new EventCodec(),
                new RunLedger(mongo)),
            new MissingAnswerProperties(
                Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofHours(1)));
  }

  @AfterEach
  void stop() throws InterruptedException {
    pending.close();
    later.close();
  }

  @Test
  void aCompletedTaskWhoseEventWasLostIsAnsweredOnceAndTheLateEventWritesNothingMore() {
    Task task = endedTask(TaskStatus.success, "sub-1", "The result.", null, minutesAgo(1));
    SubAgentMessage finalAnswer = message(task, 5, SubAgentMessage.ASSISTANT);
    // what agent-loop's OutcomeRecorder published, and the finalizer never received
    TaskOutcome lost =
        TaskOutcome.of(
            new TaskCompleted(
                Ids.derived(finalAnswer.id(), "completed"),
                Instant.now(),
                task.id(),
                CHAT,
                "sub-1",
                "The result."));

    sweep.sweep();
    await().atMost(Duration.ofSeconds(10)).until(() -> answersTo(task).size() == 1);
    sweep.sweep();
    pending.offer(lost);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> mongo.findAll(PendingAnswer.class).isEmpty());
    assertThat(answersTo(task))
        .extracting(ChatMessage::id)
        .containsExactly(FinalAnswers.idOf(lost));
    assertThat(modelCalls).containsExactly(task.id());
  }

  /** The ids agent-loop, agent-init and the orchestrator give each kind of outcome event. */
  @Test
  void everyKindOfEndIsAnsweredUnderTheIdItsEventWouldHaveGiven() {
    Task failed = endedTask(TaskStatus.failed, "sub-2", null, "timeout", minutesAgo(2));
    message(failed, 0, SubAgentMessage.SYSTEM, Ids.derived(failed.id(), "system-prompt"));
    SubAgentMessage failure =
        message(failed, 7, SubAgentMessage.SYSTEM, Ids.derived("sub-2", "failure-7"));
    Task unknownAgent = endedTask(TaskStatus.failed, null, null, "no agent", minutesAgo(2));
    Task cancelled = endedTask(TaskStatus.cancelled, null, null, null, minutesAgo(2));

    sweep.sweep();

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(answerIds(failed))
                  .containsExactly(answerId(Ids.derived(failure.id(), "failed")));
              assertThat(answerIds(unknownAgent))
                  .containsExactly(answerId(Ids.derived(unknownAgent.id(), "unknown-agent")));
              assertThat(answerIds(cancelled))
                  .containsExactly(answerId(Ids.derived(cancelled.id(), "cancelled")));
            });
  }

  /**
   * Nearly every ended task was answered, and the sweep looks at them again and again within its
   * lookback: a batch of them costs the same few reads, not a few per task. Each conversation's
   * last answer is the one whose event counts (an earlier one asked for tools).
   */
  @Test
  void aBatchOfAnsweredTasksCostsTheSweepTheSameFewReadsWhateverItsSize() {
    for (int i = 0; i < 30; i++) {
      Task task = endedTask(TaskStatus.success, "sub-" + i, "The result.", null, minutesAgo(1));
      message(task, 3, SubAgentMessage.ASSISTANT);
      SubAgentMessage last = message(task, 5, SubAgentMessage.ASSISTANT);
      chatAnswer(task, answerId(Ids.derived(last.id(), "completed")));
    }
    COMMANDS.clear();

    sweep.sweep();

    assertThat(COMMANDS.from(thread -> true))
        .containsExactly(
            "find " + Collections.TASKS, // the batch
            "find " + Collections.SUB_AGENT_MESSAGES, // the conversations' last answers
            "find " + Collections.TASKS, // their re-routes
            "find " + Collections.PLANS,
            "find " + Collections.CHAT_MESSAGES); // the answers
    assertThat(mongo.findAll(PendingAnswer.class)).isEmpty();
    assertThat(modelCalls).isEmpty();
  }

  /**
   * A child task whose caller has its result, a plan's node whose end its plan recorded and a task
   * re-routed to its fallback are carried out without an answer of their own; the same kinds
   * without it are not.
   */
  @Test
  void eachKindOfTaskIsLookedForWhereItsOutcomeGoes() {
    Task child = childTask("sub-c1", "call-1");
    message(
        DelegationReplies.messageId("call-1"),
        "parent-sub",
        "parent-task",
        9,
        SubAgentMessage.TOOL,
        Instant.now());
    Task childNotDelivered = childTask("sub-c2", "call-2");
    String planId = Ids.derived("message-plan", "plan");
    mongo.insert(
        Plan.start(
            planId,
            CHAT,
            "message-plan",
            "Research two things",
            null,
            List.of(
                PlanNode.pending(planId, "a", "researcher", "Research Kafka", List.of()),
                PlanNode.pending(planId, "b", "researcher", "Research Redis", List.of())),
            Instant.now()));
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(planId)),
        new Update()
            .set("nodes.0.status", PlanNodeStatus.success)
            .set("nodes.1.status", PlanNodeStatus.running),
        Plan.class);
    Task nodeRecorded = nodeTask(Plans.taskId(planId, "a"), "sub-a");
    Task nodeNotRecorded = nodeTask(Plans.taskId(planId, "b"), "sub-b");
    Task rerouted = endedTask(TaskStatus.cancelled, null, null, null, minutesAgo(1));
    storedTask(Task.rerouteId(rerouted.id()), TaskStatus.created, null, null, null, Instant.now());
    Task unanswered = endedTask(TaskStatus.cancelled, null, null, null, minutesAgo(1));

    List<TaskOutcome> offered =
        sweep.unanswered(
            List.of(child, childNotDelivered, nodeRecorded, nodeNotRecorded, rerouted, unanswered));

    assertThat(offered)
        .extracting(TaskOutcome::taskId)
        .containsExactly(childNotDelivered.id(), nodeNotRecorded.id(), unanswered.id());
  }

  @Test
  void aTaskEndedWithinItsGraceOrLongerAgoThanTheLookbackIsLeftAlone() {
    Task justEnded = endedTask(TaskStatus.cancelled, null, null, null, Instant.now());
    Task longAgo = endedTask(TaskStatus.cancelled, null, null, null, minutesAgo(120));

    sweep.sweep();

    assertThat(modelCalls).isEmpty();
    assertThat(answersTo(justEnded)).isEmpty();
    assertThat(answersTo(longAgo)).isEmpty();
    assertThat(mongo.findAll(PendingAnswer.class)).isEmpty();
  }

  private ModelReply model(ModelRequest request) {
    String instruction =
        request
            .messages()
            .getLast()
            .content()
            .lines()
            .filter(line -> line.startsWith("Instruction: "))
            .findFirst()
            .orElseThrow()
            .substring("Instruction: ".length());
    modelCalls.add(instruction);
    return ScriptedModel.reply("The answer to " + instruction, List.of());
  }

  private static String answerId(String eventId) {
    return Ids.derived(eventId, FinalAnswers.PURPOSE);
  }

  private static Instant minutesAgo(int minutes) {
    return Instant.now().minusSeconds(60L * minutes).truncatedTo(ChronoUnit.MILLIS);
  }

  /** A task whose instruction is its id, so the model can tell whose answer it writes. */
  private static Task endedTask(
      TaskStatus status,
      @Nullable String subAgentId,
      @Nullable String result,
      @Nullable String error,
      Instant at) {
    return storedTask(Ids.fresh(), status, subAgentId, result, error, at);
  }

  private static Task storedTask(
      String id,
      TaskStatus status,
      @Nullable String subAgentId,
      @Nullable String result,
      @Nullable String error,
      Instant at) {
    return mongo.insert(
        new Task(
            id,
            CHAT,
            Task.TYPE_AGENT,
            "researcher",
            id,
            status,
            subAgentId,
            result,
            error,
            at,
            at,
            List.of()));
  }

  private static SubAgentMessage message(Task task, long seq, String role) {
    return message(task, seq, role, Ids.derived(task.subAgentId(), "answer-" + seq));
  }

  private static SubAgentMessage message(Task task, long seq, String role, String id) {
    return message(id, task.subAgentId(), task.id(), seq, role, task.updatedAt());
  }

  private static SubAgentMessage message(
      String id, String subAgentId, String taskId, long seq, String role, Instant at) {
    return mongo.insert(
        new SubAgentMessage(
            id, subAgentId, taskId, CHAT, seq, role, "words", List.of(), null, at, List.of()));
  }

  /** A child task that succeeded, started by a parent's {@code message_agent} call. */
  private static Task childTask(String subAgentId, String toolCallId) {
    Task task = endedTask(TaskStatus.success, subAgentId, "Done.", null, minutesAgo(1));
    message(task, 2, SubAgentMessage.ASSISTANT);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(task.id())),
        new Update()
            .set(
                "delegation",
                new Task.Delegation(
                    "parent-task", "parent-sub", "parent-task", 1, toolCallId, "model-call", null)),
        Task.class);
    return mongo.findById(task.id(), Task.class);
  }

  /** A plan node's task that succeeded. */
  private static Task nodeTask(String id, String subAgentId) {
    Task task = storedTask(id, TaskStatus.success, subAgentId, "Done.", null, minutesAgo(1));
    message(task, 2, SubAgentMessage.ASSISTANT);
    return task;
  }

  private static void chatAnswer(Task task, String id) {
    mongo.insert(
        new ChatMessage(
            id,
            CHAT,
            ChatMessage.ASSISTANT,
            "The answer.",
            task.id(),
            null,
            null,
            Instant.now(),
            List.of(),
            null));
  }

  private static List<ChatMessage> answersTo(Task task) {
    return mongo.find(Query.query(Criteria.where("taskId").is(task.id())), ChatMessage.class);
  }

  private static List<String> answerIds(Task task) {
    return answersTo(task).stream().map(ChatMessage::id).toList();
  }
}
