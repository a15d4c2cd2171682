package dev.agentrt.finalizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCompleted;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Ids;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.Plans;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.CountingThreads;
import dev.agentrt.testing.InMemoryMongo;
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

/**
 * The sweep that answers ended tasks whose outcome event was lost, on a real MongoDB-protocol
 * server: each kind of end is answered once, under the id its event would have given the answer,
 * and the event coming late writes nothing more.
 */
class MissingAnswerSweepTest {

  private static final String CHAT = "chat-1";

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  private final List<String> modelCalls = new CopyOnWriteArrayList<>();
  private PendingAnswers pending;
  private MissingAnswerSweep sweep;

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
    pending =
        new PendingAnswers(
            mongo,
            answers,
            (outcome, task) -> false,
            answer -> {},
            new CountingThreads().executor(),
            new LeaseProperties(Duration.ofSeconds(20), Duration.ofSeconds(5)));
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
    String id = Ids.fresh();
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
    return mongo.insert(
        new SubAgentMessage(
            id,
            task.subAgentId(),
            task.id(),
            CHAT,
            seq,
            role,
            "words",
            List.of(),
            null,
            task.updatedAt(),
            List.of()));
  }

  private static List<ChatMessage> answersTo(Task task) {
    return mongo.find(Query.query(Criteria.where("taskId").is(task.id())), ChatMessage.class);
  }

  private static List<String> answerIds(Task task) {
    return answersTo(task).stream().map(ChatMessage::id).toList();
  }
}
