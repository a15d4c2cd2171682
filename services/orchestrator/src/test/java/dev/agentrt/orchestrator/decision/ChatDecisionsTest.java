package dev.agentrt.orchestrator.decision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.EventCodec;
import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.orchestrator.testing.Approvals;
import dev.agentrt.orchestrator.testing.Stored;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.Task;
import dev.agentrt.testing.CountingThreads;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.MongoGate;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.bson.Document;
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
 * Which messages are decided when, and on which thread: chats decided side by side, a chat's
 * messages one at a time and in order, holds that expire, renew and are let go. The decisions
 * themselves are {@link OrchestratorTest}'s.
 */
class ChatDecisionsTest {

  private static final OrchestratorProperties PROPERTIES =
      new OrchestratorProperties(
          20, 1, Duration.ZERO, Duration.ofSeconds(30), Duration.ofSeconds(60));

  private static final LeaseProperties LEASES =
      new LeaseProperties(Duration.ofSeconds(20), Duration.ofSeconds(5));

  private static final MongoGate GATE = new MongoGate();

  private static InMemoryMongo mongoServer;
  private static MongoTemplate mongo;
  private static BulkWrites writes;

  private final List<Publication> published = new CopyOnWriteArrayList<>();
  private final List<String> decided = new CopyOnWriteArrayList<>();
  private final Map<String, String> contexts = new ConcurrentHashMap<>();
  private final Map<String, CountDownLatch> holdUntil = new ConcurrentHashMap<>();
  private final Map<String, CountDownLatch> arrived = new ConcurrentHashMap<>();
  private final CountingThreads threads = new CountingThreads();
  private ChatDecisions decisions;
  private Stored stored;

  @BeforeAll
  static void startMongo() {
    mongoServer = InMemoryMongo.start(GATE);
    mongo = mongoServer.template();
    writes = new BulkWrites(mongo);
  }

  @AfterAll
  static void stopMongo() {
    writes.close();
    mongoServer.close();
  }

  @BeforeEach
  void freshState() {
    mongoServer.clear();
    stored = new Stored(mongo);
    decisions = decisions();
  }

  @AfterEach
  void stop() throws InterruptedException {
    holdUntil.values().forEach(CountDownLatch::countDown);
    decisions.close();
  }

  @Test
  void aSlowDecisionHoldsUpNoOtherChat() throws InterruptedException {
    stored.chat("slow-chat", null);
    stored.chat("quick-chat", null);
    ChatMessage slow = stored.userMessage("slow-chat", "slow: research Kafka");
    ChatMessage quick = stored.userMessage("quick-chat", "Hello");
    CountDownLatch release = hold("slow: research Kafka");

    decisions.offer("slow-chat");
    arrived.get("slow: research Kafka").await(10, TimeUnit.SECONDS);
    decisions.offer("quick-chat");

    await().atMost(Duration.ofSeconds(10)).until(() -> answered(quick));
    assertThat(startedTask(slow)).as("the slow decision is still held").isFalse();
    assertThat(awaitingDecision()).containsExactly(slow.id());

    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> startedTask(slow));
    await().atMost(Duration.ofSeconds(10)).until(() -> awaitingDecision().isEmpty());
    assertThat(decided).containsExactly("Hello", "slow: research Kafka");
    assertThat(published).extracting(Publication::documentId).hasSize(2);
  }

  @Test
  void aChatsMessagesAreDecidedOneAtATimeInOrderEachSeeingWhatTheOneBeforeLedTo()
      throws InterruptedException {
    stored.chat("chat", null);
    ChatMessage first = stored.userMessage("chat", "slow: research Kafka");
    ChatMessage second = stored.userMessage("chat", "and Pulsar");
    ChatMessage third = stored.userMessage("chat", "thanks");
    CountDownLatch release = hold("slow: research Kafka");

    decisions.offer("chat");
    arrived.get("slow: research Kafka").await(10, TimeUnit.SECONDS);
    // The events of the second and third messages come while the first is decided.
    decisions.offer("chat");
    decisions.offer("chat");
    assertThat(threads.started()).as("one thread decides the chat").isEqualTo(1);

    release.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> awaitingDecision().isEmpty());
    assertThat(decided).containsExactly("slow: research Kafka", "and Pulsar", "thanks");
    assertThat(startedTask(first)).isTrue();
    assertThat(contextSeenBy("and Pulsar"))
        .as("the second decision sees the task the first started")
        .contains(Ids.derived(first.id(), MessageOutcomes.TASK));
    assertThat(answered(second)).isTrue();
    assertThat(answered(third)).isTrue();
    assertThat(threads.started())
        .as("the messages posted while the chat was held are decided by its holder")
        .isEqualTo(1);
    // The hold ends after the last message's flag goes: wait for that write.
    await()
        .alias("let go when done")
        .atMost(Duration.ofSeconds(10))
        .until(() -> mongo.findById("chat", Chat.class).deciding() == null);
    assertThat(chatDocument("chat")).doesNotContainKey(ChatDecisions.POSTED_WHILE_HELD);
  }

  /**
   * The holder lets go of the chat after the message's event found it held, and before the event
   * marked it: the mark finds nobody to tell, and the event takes the chat itself.
   */
  @Test
  void aMessageWhoseChatIsLetGoJustBeforeItsEventMarksItIsDecidedAllTheSame() {
    stored.chat("chat", null);
    ChatMessage hello = stored.userMessage("chat", "Hello");
    heldBy("chat", "other orchestrator", Instant.now().plusSeconds(60));
    GATE.before(
        "update " + Collections.CHATS,
        command -> command.toJson().contains(ChatDecisions.POSTED_WHILE_HELD + "\": true"),
        () ->
            mongo.updateFirst(
                Query.query(Criteria.where("_id").is("chat")),
                new Update().unset("deciding"),
                Chat.class));

    decisions.offer("chat");

    assertThat(GATE.opened()).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> answered(hello));
    await()
        .alias("the stale mark is cleared as the chat is let go")
        .atMost(Duration.ofSeconds(10))
        .until(() -> !chatDocument("chat").containsKey(ChatDecisions.POSTED_WHILE_HELD));
    assertThat(mongo.findById("chat", Chat.class).deciding()).isNull();
  }

  /** A message that comes when nothing else awaits: decided, the chat let go, nothing marked. */
  @Test
  void aMessageAloneIsDecidedAndItsChatLetGoWithoutAMark() {
    stored.chat("chat", null);
    ChatMessage hello = stored.userMessage("chat", "Hello");

    decisions.offer("chat");

    await().atMost(Duration.ofSeconds(10)).until(() -> answered(hello));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> mongo.findById("chat", Chat.class).deciding() == null);
    assertThat(chatDocument("chat")).doesNotContainKey(ChatDecisions.POSTED_WHILE_HELD);
    assertThat(threads.started()).isEqualTo(1);
  }

  @Test
  void aChatHeldByALiveOrchestratorIsLeftToIt() {
    stored.chat("chat", null);
    stored.userMessage("chat", "Hello");
    heldBy("chat", "other orchestrator", Instant.now().plusSeconds(60));

    assertThat(decisions.chatsAwaitingDecision(Instant.now())).containsExactly("chat");
    decisions.offer("chat");

    assertThat(threads.started()).isZero();
    assertThat(mongo.findById("chat", Chat.class).deciding().holder())
        .isEqualTo("other orchestrator");
    assertThat(chatDocument("chat"))
        .as("marked for its holder to decide before it lets go")
        .containsEntry(ChatDecisions.POSTED_WHILE_HELD, true);
  }

  @Test
  void theSweepLeavesAMessagePostedAMomentAgoToItsEvent() throws InterruptedException {
    stored.chat("chat", null);
    ChatMessage hello =
        mongo.insert(
            ChatMessage.fromPerson(
                Ids.fresh(),
                "chat",
                "Hello",
                null,
                null,
                Instant.now().truncatedTo(ChronoUnit.MILLIS),
                List.of()));
    ChatDecisions withGrace =
        new ChatDecisions(
            mongo,
            writes,
            orchestrator(),
            published::add,
            threads.executor(),
            LEASES,
            Duration.ofHours(1));

    withGrace.sweep();

    assertThat(threads.started()).as("not taken up by the sweep").isZero();
    assertThat(awaitingDecision()).containsExactly(hello.id());
    decisions.sweep(); // no grace: it has awaited long enough
    await().atMost(Duration.ofSeconds(10)).until(() -> answered(hello));
    withGrace.close();
  }

  @Test
  void theChatsOfAnOrchestratorThatDiedAreTakenUpOnceItsHoldExpired() {
    stored.chat("chat", null);
    ChatMessage hello = stored.userMessage("chat", "Hello");
    heldBy("chat", "dead orchestrator", Instant.now().minusSeconds(1));

    decisions.sweep();

    await().atMost(Duration.ofSeconds(10)).until(() -> answered(hello));
    assertThat(decisions.chatsAwaitingDecision(Instant.now())).isEmpty();
  }

  @Test
  void renewingExtendsTheHoldsOfThisOrchestratorOnly() throws InterruptedException {
    stored.chat("mine", null);
    stored.chat("theirs", null);
    stored.userMessage("mine", "slow: research Kafka");
    CountDownLatch release = hold("slow: research Kafka");
    decisions.offer("mine");
    arrived.get("slow: research Kafka").await(10, TimeUnit.SECONDS);
    Instant past = Instant.now().minusSeconds(5).truncatedTo(ChronoUnit.MILLIS);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is("mine")),
        new Update().set("deciding.leaseUntil", past),
        Chat.class);
    heldBy("theirs", "other orchestrator", past);

    decisions.leases().renew();

    assertThat(mongo.findById("mine", Chat.class).deciding().leaseUntil()).isAfter(Instant.now());
    assertThat(mongo.findById("theirs", Chat.class).deciding().leaseUntil()).isEqualTo(past);
    release.countDown();
  }

  @Test
  void closingLetsGoOfTheChatsItHoldsAndTheirMessagesStillAwaitADecision()
      throws InterruptedException {
    stored.chat("chat", null);
    ChatMessage slow = stored.userMessage("chat", "slow: research Kafka");
    CountDownLatch release = hold("slow: research Kafka");
    decisions.offer("chat");
    arrived.get("slow: research Kafka").await(10, TimeUnit.SECONDS);

    decisions.close();

    assertThat(mongo.findById("chat", Chat.class).deciding().holder()).as("let go").isNull();
    assertThat(awaitingDecision()).containsExactly(slow.id());
    release.countDown();
    ChatDecisions next = decisions();
    next.sweep();
    await().atMost(Duration.ofSeconds(10)).until(() -> awaitingDecision().isEmpty());
    next.close();
  }

  @Test
  void aMessageWhoseDecisionFailsAgainAndAgainGetsAnApologyAndItsChatMovesOn()
      throws InterruptedException {
    stored.chat("chat", null);
    ChatMessage broken = stored.userMessage("chat", "broken");
    ChatMessage next = stored.userMessage("chat", "Hello");
    AtomicInteger attempts = new AtomicInteger();
    decisions.close();
    decisions =
        decisions(
            orchestrator(
                (message, triedBefore, decision) -> {
                  if (message.id().equals(broken.id())) {
                    attempts.incrementAndGet();
                    throw new IllegalStateException("this message cannot be decided");
                  }
                  return decision.get();
                }));

    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              decisions.sweep();
              return answered(next);
            });

    assertThat(attempts).hasValue(ChatDecisions.MAX_ATTEMPTS);
    assertThat(
            mongo
                .findById(Ids.derived(broken.id(), MessageOutcomes.ANSWER), ChatMessage.class)
                .content())
        .isEqualTo(Decider.APOLOGY);
    assertThat(decided).containsExactly("Hello");
    // The flag goes after the answer is published: wait for that last write, not the answer.
    await().atMost(Duration.ofSeconds(10)).until(() -> awaitingDecision().isEmpty());
  }

  @Test
  void aMessageWhoseDeciderFailedAfterWritingItsOutcomeIsNotDecidedAgain()
      throws InterruptedException {
    stored.chat("chat", null);
    ChatMessage hello = stored.userMessage("chat", "Hello");
    AtomicInteger tries = new AtomicInteger();
    List<Boolean> triedBefore = new CopyOnWriteArrayList<>();
    decisions.close();
    decisions =
        decisions(
            orchestrator(
                (message, tried, decision) -> {
                  triedBefore.add(tried);
                  Publication written = decision.get();
                  if (tries.incrementAndGet() == 1) {
                    throw new IllegalStateException("the decider dies after writing the outcome");
                  }
                  return written;
                }));

    decisions.offer("chat");
    await().atMost(Duration.ofSeconds(10)).until(() -> triedBefore.size() == 1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              decisions.sweep();
              return awaitingDecision().isEmpty();
            });

    assertThat(triedBefore).containsExactly(false, true);
    assertThat(decided).as("the model decided the message once").containsExactly("Hello");
    assertThat(published)
        .extracting(Publication::documentId)
        .containsExactly(Ids.derived(hello.id(), MessageOutcomes.ANSWER));
  }

  // --- fixtures -----------------------------------------------------------------------------

  private ChatDecisions decisions() {
    return decisions(orchestrator());
  }

  private Orchestrator orchestrator() {
    return orchestrator((message, triedBefore, decision) -> decision.get());
  }

  /** What a test does around each decision; {@code decision} makes it as the orchestrator does. */
  private interface AroundDecision {
    Publication handle(ChatMessage message, boolean triedBefore, Supplier<Publication> decision);
  }

  private Orchestrator orchestrator(AroundDecision around) {
    return new Orchestrator(
        mongo,
        new BulkWrites(mongo),
        new SubAgentConversations(mongo),
        AgentCatalog.fromClasspath("agents.yml"),
        new Decider(this::decide, PROPERTIES),
        new EventCodec(),
        PROPERTIES,
        new RunLedger(mongo),
        new WaitingQuestions(mongo, new SubAgentConversations(mongo)),
        Approvals.withoutBroker(mongo),
        new ChatPlans(
            Stored.plans(mongo), AgentCatalog.fromClasspath("agents.yml"), new PlanProperties(12)),
        new RoutingProperties(0.7)) {
      @Override
      Publication handle(ChatMessage message, boolean triedBefore) {
        return around.handle(message, triedBefore, () -> super.handle(message, triedBefore));
      }
    };
  }

  private ChatDecisions decisions(Orchestrator orchestrator) {
    return new ChatDecisions(
        mongo, writes, orchestrator, published::add, threads.executor(), LEASES, Duration.ZERO);
  }

  /**
   * The scripted decision: a message starting "slow" starts a research task once its latch is
   * released; any other message is answered.
   */
  private ModelReply decide(ModelRequest request) {
    String message = request.messages().getLast().content();
    arrived.computeIfAbsent(message, m -> new CountDownLatch(1)).countDown();
    CountDownLatch release = holdUntil.get(message);
    if (release != null) {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ModelException("interrupted", false);
      }
    }
    decided.add(message);
    contexts.put(message, request.messages().getFirst().content());
    return message.startsWith("slow")
        ? ScriptedModel.reply(
            "{\"action\":\"new_task\",\"agent\":\"researcher\",\"instruction\":\""
                + message
                + "\",\"confidence\":0.9,\"reason\":\"It is slow work.\"}",
            List.of())
        : ScriptedModel.reply("{\"action\":\"answer\",\"answer\":\"Noted.\"}", List.of());
  }

  private CountDownLatch hold(String message) {
    arrived.put(message, new CountDownLatch(1));
    return holdUntil.computeIfAbsent(message, m -> new CountDownLatch(1));
  }

  /** The context line (agents and tasks) the decision of this message saw. */
  private String contextSeenBy(String message) {
    return contexts.get(message);
  }

  private static boolean answered(ChatMessage message) {
    return mongo.findById(Ids.derived(message.id(), MessageOutcomes.ANSWER), ChatMessage.class)
        != null;
  }

  private static boolean startedTask(ChatMessage message) {
    return mongo.findById(Ids.derived(message.id(), MessageOutcomes.TASK), Task.class) != null;
  }

  private static List<String> awaitingDecision() {
    return mongo
        .find(
            Query.query(Criteria.where(ChatMessage.AWAITING_DECISION).is(true)), ChatMessage.class)
        .stream()
        .map(ChatMessage::id)
        .toList();
  }

  private static Document chatDocument(String chatId) {
    return mongo.getCollection(Collections.CHATS).find(new Document("_id", chatId)).first();
  }

  private static void heldBy(String chatId, String holder, Instant until) {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(chatId)),
        new Update().set("deciding", new Chat.Deciding(holder, until)),
        Chat.class);
  }
}
