package dev.agentrt.finalizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCompleted;
import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.LaterUpdates;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Lease;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.CountingThreads;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.ScriptedModel;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
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
 * When answers are written and on which thread: side by side, each on its own, held while written,
 * taken up again when their holder died or let go, stored once. The answers themselves are {@link
 * FinalAnswersTest}'s.
 */
class PendingAnswersTest {

  private static final FinalizerProperties PROPERTIES =
      new FinalizerProperties(6, 1, Duration.ZERO, Duration.ofSeconds(30), Duration.ofSeconds(60));

  private static final LeaseProperties LEASES =
      new LeaseProperties(Duration.ofSeconds(20), Duration.ofSeconds(5));

  private static final String LEASE_UNTIL = PendingAnswer.LEASE + ".leaseUntil";
  private static final String CHAT = "chat-1";
  private static final Instant T0 = Instant.parse("2026-11-22T12:00:00Z");

  private static InMemoryMongo mongoServer;
  private static MongoTemplate mongo;

  private final List<ChatMessage> published = new CopyOnWriteArrayList<>();
  private final List<String> modelCalls = new CopyOnWriteArrayList<>();
  private final Map<String, CountDownLatch> holdUntil = new ConcurrentHashMap<>();
  private final List<CountDownLatch> releases = new CopyOnWriteArrayList<>();
  private final Map<String, CountDownLatch> arrived = new ConcurrentHashMap<>();
  private final CountingThreads threads = new CountingThreads();
  private LaterUpdates later;
  private PendingAnswers pending;

  @BeforeAll
  static void startMongo() {
    mongoServer = InMemoryMongo.start();
    mongo = mongoServer.template();
  }

  @AfterAll
  static void stopMongo() {
    mongoServer.close();
  }

  @BeforeEach
  void storedChatAndTasks() {
    mongoServer.clear();
    mongo.insert(new Chat(CHAT, "test", T0));
    task("slow-task");
    task("quick-task");
    later = new LaterUpdates(new BulkWrites(mongo), "later-updates", Duration.ofMillis(100));
    pending = pendingAnswers();
  }

  @AfterEach
  void stop() throws InterruptedException {
    releases.forEach(CountDownLatch::countDown);
    pending.close();
    later.close();
  }

  @Test
  void aSlowAnswerHoldsUpNoOtherTasksAnswer() throws InterruptedException {
    TaskOutcome slow = completed("slow-task");
    TaskOutcome quick = completed("quick-task");
    CountDownLatch release = hold("slow-task");

    pending.offer(slow); // the listener's call: it returns while the model is still writing
    assertThat(arrived.get("slow-task").await(10, TimeUnit.SECONDS)).isTrue();
    pending.offer(quick);

    // The quick answer is written, then its pending entry removed: wait for both.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> answer(quick) != null && pendingIds().equals(List.of(FinalAnswers.idOf(slow))));
    assertThat(answer(slow)).as("the slow answer is still being written").isNull();

    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> pendingIds().isEmpty());
    assertThat(answer(slow).content()).isEqualTo("The answer to slow-task, written 1st.");
    assertThat(published)
        .extracting(ChatMessage::taskId)
        .containsExactly("quick-task", "slow-task");
    assertThat(threads.started()).isEqualTo(2);
  }

  @Test
  void theAnswerOfAFinalizerThatDiedIsWrittenByTheSweepOnceItsHoldExpired() {
    TaskOutcome outcome = completed("quick-task");
    pendingAnswer(outcome, "dead finalizer", Instant.now().minusSeconds(1));

    pending.sweep();

    await().atMost(Duration.ofSeconds(10)).until(() -> pendingIds().isEmpty());
    assertThat(answer(outcome).content()).isEqualTo("The answer to quick-task, written 1st.");
    assertThat(published).extracting(ChatMessage::id).containsExactly(FinalAnswers.idOf(outcome));
  }

  @Test
  void anAnswerHeldByALiveFinalizerIsLeftToIt() {
    TaskOutcome outcome = completed("quick-task");
    pendingAnswer(outcome, "other finalizer", Instant.now().plusSeconds(60));

    pending.offer(outcome); // its event, redelivered here
    pending.sweep();

    assertThat(threads.started()).isZero();
    assertThat(modelCalls).isEmpty();
    assertThat(mongo.findById(FinalAnswers.idOf(outcome), PendingAnswer.class).lease().holder())
        .isEqualTo("other finalizer");
  }

  @Test
  void renewingExtendsTheHoldsOfThisFinalizerOnly() throws InterruptedException {
    TaskOutcome kept = completed("slow-task");
    TaskOutcome lost = completed("quick-task");
    hold("slow-task");
    hold("quick-task");
    pending.offer(kept);
    pending.offer(lost);
    assertThat(arrived.get("slow-task").await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(arrived.get("quick-task").await(10, TimeUnit.SECONDS)).isTrue();
    Instant past = Instant.now().minusSeconds(5).truncatedTo(ChronoUnit.MILLIS);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(FinalAnswers.idOf(kept))),
        new Update().set(LEASE_UNTIL, past),
        PendingAnswer.class);
    // A pause let the other's hold expire, and another finalizer took it.
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(FinalAnswers.idOf(lost))),
        new Update().set(PendingAnswer.LEASE, new Lease("other finalizer", past)),
        PendingAnswer.class);

    assertThat(pending.leases().renew())
        .as("the hold another finalizer took is lost here")
        .containsExactly(FinalAnswers.idOf(lost));

    assertThat(pendingAnswer(kept).lease().leaseUntil()).isAfter(Instant.now());
    assertThat(pendingAnswer(lost).lease()).isEqualTo(new Lease("other finalizer", past));
  }

  @Test
  void closingLetsGoOfTheAnswersItHoldsAndTheNextFinalizerWritesThem() throws InterruptedException {
    TaskOutcome outcome = completed("slow-task");
    hold("slow-task");
    pending.offer(outcome);
    assertThat(arrived.get("slow-task").await(10, TimeUnit.SECONDS)).isTrue();

    pending.close(); // interrupts the model call it was waiting for

    assertThat(pendingAnswer(outcome).lease().holder()).isNull();
    assertThat(pendingAnswer(outcome).lease().leaseUntil()).isBefore(Instant.now());
    assertThat(answer(outcome)).as("the answer cut short is not written").isNull();
    PendingAnswers next = pendingAnswers();
    next.sweep();
    await().atMost(Duration.ofSeconds(10)).until(() -> pendingIds().isEmpty());
    assertThat(answer(outcome).content()).isEqualTo("The answer to slow-task, written 2nd.");
    assertThat(answersTo("slow-task")).hasSize(1);
    next.close();
  }

  @Test
  void anAnswerWrittenByTwoFinalizersIsStoredAndCountedOnce() throws InterruptedException {
    TaskOutcome outcome = completed("slow-task");
    CountDownLatch release = hold("slow-task");
    pending.offer(outcome);
    assertThat(arrived.get("slow-task").await(10, TimeUnit.SECONDS)).isTrue();
    // This finalizer pauses past its hold; another takes the answer up and writes it.
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(FinalAnswers.idOf(outcome))),
        new Update().set(LEASE_UNTIL, Instant.now().minusSeconds(1)),
        PendingAnswer.class);
    PendingAnswers other = pendingAnswers();
    other.sweep();
    await().atMost(Duration.ofSeconds(10)).until(() -> pendingIds().isEmpty());

    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> published.size() == 2);

    assertThat(modelCalls).containsExactly("slow-task", "slow-task");
    assertThat(answersTo("slow-task"))
        .extracting(ChatMessage::content)
        .containsExactly("The answer to slow-task, written 2nd.");
    assertThat(mongo.findById("slow-task", Task.class).usage().turns()).isEqualTo(1);
    assertThat(pendingIds()).isEmpty();
    other.close();
  }

  @Test
  void aRedeliveredOutcomeWhoseAnswerIsWrittenAsksTheModelNoMore() {
    TaskOutcome outcome = completed("quick-task");
    pending.offer(outcome);
    await().atMost(Duration.ofSeconds(10)).until(() -> pendingIds().isEmpty());

    pending.offer(outcome);
    await().atMost(Duration.ofSeconds(10)).until(() -> pendingIds().isEmpty());

    assertThat(modelCalls).containsExactly("quick-task");
    assertThat(answersTo("quick-task")).hasSize(1);
    assertThat(published).extracting(ChatMessage::id).containsOnly(FinalAnswers.idOf(outcome));
  }

  /**
   * Once the answer is written and published, the pending answer is removed later, with the
   * process's other later writes, not waited for: until then it stays held, so a redelivered event
   * and a sweep leave it; then it is gone.
   */
  @Test
  void thePendingAnswerIsRemovedLaterAndIsLeftAloneUntilThen() throws InterruptedException {
    TaskOutcome outcome = completed("quick-task");
    LaterUpdates lingering =
        new LaterUpdates(new BulkWrites(mongo), "later-test", Duration.ofMinutes(1));
    PendingAnswers finalizer = pendingAnswers(lingering);
    finalizer.offer(outcome);
    await().atMost(Duration.ofSeconds(10)).until(() -> published.size() == 1);

    finalizer.offer(outcome); // its event, redelivered here
    finalizer.sweep();
    finalizer.close(); // waits for the answer's thread, which queued the removal

    assertThat(pendingIds()).as("not removed yet").containsExactly(FinalAnswers.idOf(outcome));
    lingering.close(); // the linger is over
    assertThat(pendingIds()).isEmpty();
    assertThat(modelCalls).containsExactly("quick-task");
    assertThat(threads.started()).isEqualTo(1);
  }

  // --- fixtures -----------------------------------------------------------------------------

  private PendingAnswers pendingAnswers() {
    return pendingAnswers(later);
  }

  private PendingAnswers pendingAnswers(LaterUpdates later) {
    FinalAnswers answers =
        new FinalAnswers(
            mongo,
            new BulkWrites(mongo),
            this::finalAnswerModel,
            new EventCodec(),
            PROPERTIES,
            new UsageCounter(mongo),
            new RunLedger(mongo));
    return new PendingAnswers(
        mongo,
        answers,
        (outcome, task) -> false,
        published::add,
        threads.executor(),
        LEASES,
        later);
  }

  /**
   * The scripted final-answer model: names the task and how many times it was asked about it. The
   * first call for a task held with {@link #hold} waits until its latch is released.
   */
  private ModelReply finalAnswerModel(ModelRequest request) {
    String taskId =
        request
            .messages()
            .getLast()
            .content()
            .lines()
            .filter(line -> line.startsWith("Instruction: "))
            .findFirst()
            .orElseThrow()
            .substring("Instruction: ".length());
    modelCalls.add(taskId);
    long calls = modelCalls.stream().filter(taskId::equals).count();
    arrived.computeIfAbsent(taskId, t -> new CountDownLatch(1)).countDown();
    CountDownLatch release = holdUntil.remove(taskId);
    if (release != null) {
      try {
        if (!release.await(30, TimeUnit.SECONDS)) {
          throw new ModelException("never released", false);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ModelException("interrupted", false);
      }
    }
    return ScriptedModel.reply(
        "The answer to " + taskId + ", written " + calls + (calls == 1 ? "st." : "nd."), List.of());
  }

  /**
   * Holds the next model call for the task until the latch returned is released (each test's end
   * releases them all).
   */
  private CountDownLatch hold(String taskId) {
    CountDownLatch release = new CountDownLatch(1);
    arrived.put(taskId, new CountDownLatch(1));
    holdUntil.put(taskId, release);
    releases.add(release);
    return release;
  }

  /** A finished task whose instruction is its id, so the model can tell whose answer it writes. */
  private static void task(String id) {
    mongo.insert(
        new Task(
            id,
            CHAT,
            Task.TYPE_AGENT,
            "researcher",
            id,
            TaskStatus.success,
            "sub-" + id,
            "The result of " + id,
            null,
            T0,
            T0,
            List.of()));
  }

  private static TaskOutcome completed(String taskId) {
    return TaskOutcome.of(
        new TaskCompleted(
            "ev-" + taskId, T0.plusSeconds(60), taskId, CHAT, "sub-" + taskId, "A result."));
  }

  private static void pendingAnswer(TaskOutcome outcome, String holder, Instant leaseUntil) {
    mongo.insert(
        new PendingAnswer(
            FinalAnswers.idOf(outcome),
            outcome.eventId(),
            outcome.taskId(),
            outcome.chatId(),
            "A result.",
            null,
            new Lease(holder, leaseUntil)));
  }

  private static PendingAnswer pendingAnswer(TaskOutcome outcome) {
    return mongo.findById(FinalAnswers.idOf(outcome), PendingAnswer.class);
  }

  private static ChatMessage answer(TaskOutcome outcome) {
    return mongo.findById(FinalAnswers.idOf(outcome), ChatMessage.class);
  }

  private static List<ChatMessage> answersTo(String taskId) {
    return mongo.find(Query.query(Criteria.where("taskId").is(taskId)), ChatMessage.class);
  }

  private static List<String> pendingIds() {
    return mongo.findAll(PendingAnswer.class).stream().map(PendingAnswer::id).toList();
  }
}
