package dev.agentrt.toolrunner.calls;

import static dev.agentrt.toolrunner.calls.ToolCallFixtures.call;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.finished;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.now;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.pending;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.requested;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.subAgent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StoreIndexes;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.toolrunner.tools.Toolbox;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Claim, execute, record and answer on a real MongoDB-protocol server: given the stored state and
 * an event (or a sweep), these writes and these events. Published events are recorded instead of
 * sent; {@code ToolRunnerApplicationTest} covers the way over a real broker.
 */
class ToolCallRunnerTest {

  private static final EventCodec CODEC = new EventCodec();
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final ToolCallProperties PROPERTIES =
      new ToolCallProperties(
          Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(10));

  private static MongoServer mongoServer;
  private static MongoClient mongoClient;
  private static MongoTemplate mongo;

  private final RecordingPublisher published = new RecordingPublisher();
  private final List<ToolCallRunner> runners = new ArrayList<>();
  private ScriptedTool tool;
  private ToolCallRunner runner;
  private LeaseSweeper sweeper;

  @BeforeAll
  static void startMongo() {
    mongoServer = new MongoServer(new MemoryBackend());
    mongoClient = MongoClients.create("mongodb://127.0.0.1:" + mongoServer.bind().getPort());
    mongo = new MongoTemplate(mongoClient, "agentrt");
  }

  @AfterAll
  static void stopMongo() {
    mongoClient.close();
    mongoServer.shutdownNow();
  }

  @BeforeEach
  void emptyStore() {
    mongo.getDb().drop();
    new StoreIndexes(mongo).afterPropertiesSet();
    new ToolCallIndexes(mongo).afterPropertiesSet();
    tool = new ScriptedTool();
    runner = runner(PROPERTIES);
    sweeper = new LeaseSweeper(new ToolCalls(mongo, PROPERTIES), runner);
  }

  @AfterEach
  void stopRunners() {
    runners.forEach(ToolCallRunner::destroy);
  }

  private ToolCallRunner runner(ToolCallProperties properties) {
    ToolCalls calls = new ToolCalls(mongo, properties);
    ToolMessages messages =
        new ToolMessages(
            calls, mongo, new SubAgentConversations(mongo), new Outbox(published, mongo), CODEC);
    ToolCallRunner made =
        new ToolCallRunner(
            calls,
            messages,
            new Toolbox(List.of(tool)),
            properties,
            new SimpleMeterRegistry(),
            new RunLedger(mongo));
    runners.add(made);
    return made;
  }

  // --- the event path

  @Test
  void aPendingCallRunsOnceAndIsAnsweredOnceEvenWhenItsEventArrivesTwice() {
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));

    assertThat(runner.onRequested(requested(call))).isTrue();
    assertThat(runner.onRequested(requested(call))).isFalse();
    ToolCall done = awaitAnswered(call);
    assertThat(runner.onRequested(requested(call))).isFalse();

    assertThat(tool.executions).hasValue(1);
    assertThat(done.status()).isEqualTo(ToolCallStatus.success);
    assertThat(done.result()).isEqualTo(ScriptedTool.RESULT);
    assertThat(done.error()).isNull();
    assertThat(done.latencyMs()).isNotNull().isNotNegative();
    assertThat(done.updatedAt()).isAfterOrEqualTo(call.updatedAt());
    SubAgentMessage message = theToolMessageOf(call);
    assertThat(message.content()).isEqualTo(ScriptedTool.RESULT);
    assertThat(message.toolCallId()).isEqualTo(call.modelCallId());
    assertThat(message.toolCalls()).isEmpty();
    assertThat(message.seq()).isEqualTo(subAgent.messageCount() + 1);
    assertThat(message.outbox()).as("published, so cleared").isEmpty();
    assertThat(published.events())
        .containsExactly(
            new SubAgentMessageAdded(
                Ids.derived(message.id(), "added"),
                message.createdAt(),
                subAgent.id(),
                subAgent.taskId(),
                subAgent.chatId(),
                message.id(),
                SubAgentMessage.TOOL));
    assertThat(published.entries.getFirst().topic()).isEqualTo(Topics.SUB_AGENT_MESSAGES);
    assertThat(published.entries.getFirst().key()).isEqualTo(subAgent.id());
  }

  @Test
  void twoRunnersRacingForOneCallRunItOnce() throws Exception {
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));
    ToolCallRunner other = runner(PROPERTIES);
    CyclicBarrier together = new CyclicBarrier(2);

    List<Boolean> took;
    try (ExecutorService both = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Boolean> first =
          both.submit(() -> together.await() >= 0 && runner.onRequested(requested(call)));
      Future<Boolean> second =
          both.submit(() -> together.await() >= 0 && other.onRequested(requested(call)));
      took = List.of(first.get(), second.get());
    }
    awaitAnswered(call);

    assertThat(took).containsExactlyInAnyOrder(true, false);
    assertThat(tool.executions).hasValue(1);
    assertThat(messagesOf(subAgent)).hasSize(1);
    assertThat(published.entries).hasSize(1);
  }

  @Test
  void aCallSomeoneElseHoldsIsLeftAlone() {
    SubAgent subAgent = stored(subAgent());
    Instant lease = now().plusSeconds(30);
    ToolCall call =
        stored(
            call(
                subAgent,
                "search_docs",
                "{\"query\":\"x\"}",
                ToolCallStatus.running,
                lease,
                now()));

    assertThat(runner.onRequested(requested(call))).isFalse();
    assertThat(sweeper.sweep()).isZero();

    assertThat(tool.executions).hasValue(0);
    assertThat(reload(call).status()).isEqualTo(ToolCallStatus.running);
    assertThat(reload(call).leaseUntil()).isEqualTo(call.leaseUntil());
    assertThat(messagesOf(subAgent)).isEmpty();
    assertThat(published.entries).isEmpty();
  }

  @Test
  void theListenerIsFreeWhileAToolRuns() throws InterruptedException {
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"slow\"}"));
    tool.release = new CountDownLatch(1);

    assertThat(runner.onRequested(requested(call))).isTrue();
    tool.started.await();

    ToolCall running = reload(call);
    assertThat(running.status()).isEqualTo(ToolCallStatus.running);
    assertThat(running.leaseUntil()).isAfter(now().plus(PROPERTIES.lease()).minusSeconds(10));
    tool.release.countDown();
    assertThat(awaitAnswered(call).status()).isEqualTo(ToolCallStatus.success);
  }

  // --- failures the agent reads

  @Test
  void argumentsBreakingTheSchemaFailAndTheAgentStillGetsAnAnswer() {
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"limit\":3}"));

    runner.onRequested(requested(call));
    ToolCall done = awaitAnswered(call);

    assertThat(tool.executions).hasValue(0);
    assertThat(done.status()).isEqualTo(ToolCallStatus.failed);
    assertThat(done.result()).isNull();
    JsonNode error = JSON.readTree(done.error());
    assertThat(error.get("error_type").asString()).isEqualTo("invalid_arguments");
    assertThat(error.get("message").asString()).contains("'query'");
    assertThat(theToolMessageOf(call).content()).isEqualTo(done.error());
    assertThat(published.events()).hasSize(1);
  }

  @Test
  void anUnknownToolFailsAsUnknownAndIsAnswered() {
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "launch_rockets", "{}"));

    runner.onRequested(requested(call));
    ToolCall done = awaitAnswered(call);

    assertThat(JSON.readTree(done.error()).get("error_type").asString()).isEqualTo("unknown_tool");
    assertThat(theToolMessageOf(call).content()).isEqualTo(done.error());
  }

  @Test
  void aToolThatRunsTooLongFailsWithTimeout() {
    ToolCallProperties quick =
        new ToolCallProperties(
            Duration.ofMillis(200), Duration.ofSeconds(30), Duration.ofSeconds(10));
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"slow\"}"));
    tool.release = new CountDownLatch(1);

    runner(quick).onRequested(requested(call));
    ToolCall done = awaitAnswered(call);

    assertThat(done.status()).isEqualTo(ToolCallStatus.failed);
    assertThat(JSON.readTree(done.error()))
        .isEqualTo(
            JSON.readTree(
                "{\"error_type\":\"timeout\",\"message\":\"search_docs did not finish within 200 ms\"}"));
    assertThat(theToolMessageOf(call).content()).isEqualTo(done.error());
  }

  @Test
  void aLateResultDoesNotOverwriteTheOneRecordedFirst() {
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"x\"}"));
    String first = "{\"results\":[{\"path\":\"docs/first.md\"}]}";
    // Another worker took the call back and finished it while this one was still running.
    tool.whileRunning =
        () ->
            mongo.updateFirst(
                Query.query(Criteria.where("_id").is(call.id())),
                new Update().set("status", ToolCallStatus.success).set("result", first),
                ToolCall.class);

    runner.onRequested(requested(call));
    ToolCall done = awaitAnswered(call);

    assertThat(done.result()).isEqualTo(first);
    assertThat(theToolMessageOf(call).content()).isEqualTo(first);
    assertThat(published.events()).hasSize(1);
  }

  // --- the sweeper

  @Test
  void theSweeperTakesBackACallWhoseLeaseExpiredAndRunsItAgain() {
    SubAgent subAgent = stored(subAgent());
    Instant started = now().minusSeconds(120);
    ToolCall call =
        stored(
            call(
                subAgent,
                "search_docs",
                "{\"query\":\"x\"}",
                ToolCallStatus.running,
                started.plusSeconds(60),
                started));

    assertThat(sweeper.sweep()).isEqualTo(1);
    ToolCall done = awaitAnswered(call);

    assertThat(tool.executions).hasValue(1);
    assertThat(done.status()).isEqualTo(ToolCallStatus.success);
    assertThat(theToolMessageOf(call).content()).isEqualTo(ScriptedTool.RESULT);
    assertThat(published.events()).hasSize(1);
  }

  @Test
  void theSweeperRunsAPendingCallNobodyClaimedButLeavesAFreshOneToItsEvent() {
    SubAgent subAgent = stored(subAgent());
    ToolCall forgotten =
        stored(
            call(
                subAgent,
                "search_docs",
                "{\"query\":\"x\"}",
                ToolCallStatus.pending,
                null,
                now().minusSeconds(60)));
    ToolCall fresh = stored(pending(subAgent, "search_docs", "{\"query\":\"y\"}"));

    assertThat(sweeper.sweep()).isEqualTo(1);
    awaitAnswered(forgotten);

    assertThat(reload(fresh).status()).isEqualTo(ToolCallStatus.pending);
    assertThat(tool.executions).hasValue(1);
    assertThat(theToolMessageOf(forgotten).content()).isEqualTo(ScriptedTool.RESULT);
  }

  @Test
  void theSweeperAnswersAFinishedCallWhoseMessageWasNeverAppendedWithoutRunningItAgain() {
    SubAgent subAgent = stored(subAgent());
    String result = "{\"results\":[{\"path\":\"docs/kafka.md\"}]}";
    ToolCall crashedAfterRecording =
        stored(
            finished(
                pending(subAgent, "search_docs", "{\"query\":\"x\"}"),
                ToolCallStatus.success,
                result,
                now().minusSeconds(1)));

    assertThat(sweeper.sweep()).isEqualTo(1);
    awaitAnswered(crashedAfterRecording);

    assertThat(tool.executions).hasValue(0);
    assertThat(theToolMessageOf(crashedAfterRecording).content()).isEqualTo(result);
    assertThat(published.events()).hasSize(1);
    assertThat(sweeper.sweep()).isZero();
  }

  @Test
  void askUserBelongsToTheAgentLoopAndIsNeverClaimed() {
    SubAgent subAgent = stored(subAgent());
    ToolCall ask =
        stored(
            call(
                subAgent,
                "ask_user",
                "{\"question\":\"which?\"}",
                ToolCallStatus.pending,
                null,
                now().minusSeconds(60)));

    assertThat(runner.onRequested(requested(ask))).isFalse();
    assertThat(sweeper.sweep()).isZero();
    assertThat(reload(ask).status()).isEqualTo(ToolCallStatus.pending);
  }

  // --- helpers

  private static <T> T stored(T document) {
    return mongo.insert(document);
  }

  private static ToolCall reload(ToolCall call) {
    return mongo.findById(call.id(), ToolCall.class);
  }

  /** Waits until the call is finished and its tool message appended (its lease cleared). */
  private static ToolCall awaitAnswered(ToolCall call) {
    return await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> reload(call), c -> ToolCalls.finished(c) && c.leaseUntil() == null);
  }

  private static List<SubAgentMessage> messagesOf(SubAgent subAgent) {
    return new SubAgentConversations(mongo).messages(subAgent.id());
  }

  private static SubAgentMessage theToolMessageOf(ToolCall call) {
    List<SubAgentMessage> messages =
        mongo.find(
            Query.query(Criteria.where("subAgentId").is(call.subAgentId())), SubAgentMessage.class);
    assertThat(messages).hasSize(1);
    SubAgentMessage message = messages.getFirst();
    assertThat(message.id()).isEqualTo(ToolMessages.messageId(call.id()));
    assertThat(message.role()).isEqualTo(SubAgentMessage.TOOL);
    assertThat(mongo.getCollection(Collections.SUB_AGENT_MESSAGES).countDocuments()).isEqualTo(1);
    return message;
  }

  /** Records what would be sent to Kafka, acknowledging at once. */
  private static final class RecordingPublisher extends EventPublisher {

    final List<OutboxEntry> entries = new CopyOnWriteArrayList<>();

    RecordingPublisher() {
      super(null, "test");
    }

    @Override
    public CompletableFuture<?> send(OutboxEntry entry) {
      entries.add(entry);
      return CompletableFuture.completedFuture(null);
    }

    List<Event> events() {
      return entries.stream()
          .map(e -> CODEC.decode(e.ceType(), e.payload().getBytes(StandardCharsets.UTF_8)))
          .toList();
    }
  }
}
