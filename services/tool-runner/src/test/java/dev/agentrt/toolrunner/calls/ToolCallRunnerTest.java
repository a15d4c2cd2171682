package dev.agentrt.toolrunner.calls;

import static dev.agentrt.toolrunner.calls.ToolCallFixtures.call;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.finished;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.namingAgent;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.now;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.pending;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.requested;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.requestedWithoutTheCall;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.subAgent;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.unclaimed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Chat;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StoreIndexes;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.testing.MongoCommands;
import dev.agentrt.testing.MongoGate;
import dev.agentrt.toolrunner.mcp.McpServer;
import dev.agentrt.toolrunner.mcp.McpTestServers;
import dev.agentrt.toolrunner.tools.ToolSettings;
import dev.agentrt.toolrunner.tools.Toolbox;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
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
  private static final AgentCatalog AGENTS =
      AgentCatalog.read(
          new ByteArrayInputStream(
              """
              agents:
                - name: researcher
                  description: Researches.
                  systemPrompt: Research.
                  tools: [search_docs, read_doc]
                - name: filer
                  description: Files things.
                  systemPrompt: File.
                  tools: [files__*]
                - name: tester
                  description: Tries everything.
                  systemPrompt: Try.
                  tools: [everything__*]
              """
                  .getBytes(StandardCharsets.UTF_8)),
          "test agents");
  private static final ToolCallProperties PROPERTIES =
      new ToolCallProperties(Duration.ofSeconds(10), Duration.ofSeconds(10));

  /** For tests of one attempt's timeout: a timeout is transient, so it would be tried again. */
  static final ToolCallProperties.Retry NO_RETRIES =
      new ToolCallProperties.Retry(1, Duration.ofMillis(1), Duration.ofMillis(1));

  private static final MongoCommands COMMANDS = new MongoCommands();
  private static final MongoGate GATE = new MongoGate();

  private static MongoServer mongoServer;
  private static MongoClient mongoClient;
  private static MongoTemplate mongo;

  private final RecordingPublisher published = new RecordingPublisher();
  private final List<ToolCallRunner> runners = new ArrayList<>();
  private ScriptedTool tool;
  private ToolCallRunner runner;
  private ToolCallSweeper sweeper;

  @BeforeAll
  static void startMongo() {
    mongoServer = new MongoServer(new MemoryBackend());
    mongoClient =
        MongoClients.create(
            MongoClientSettings.builder()
                .applyConnectionString(
                    new ConnectionString("mongodb://127.0.0.1:" + mongoServer.bind().getPort()))
                .addCommandListener(COMMANDS)
                .addCommandListener(GATE)
                .build());
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
    COMMANDS.clear();
    tool = new ScriptedTool();
    runner = runner(PROPERTIES);
    sweeper = Runners.sweeper(runner);
  }

  @AfterEach
  void stopRunners() {
    runners.forEach(ToolCallRunner::destroy);
  }

  private ToolCallRunner runner(ToolCallProperties properties) {
    return runner(properties, Toolbox.of(List.of(tool), properties.settings()));
  }

  private ToolCallRunner runner(ToolCallProperties properties, Toolbox toolbox) {
    ToolCallRunner made = Runners.runner(mongo, published, AGENTS, properties, toolbox);
    runners.add(made);
    return made;
  }

  // --- the event path

  @Test
  void aCallsArgumentsAndResultGoOnItsSpanOnlyWhenContentCaptureIsOn() {
    for (boolean capture : List.of(false, true)) {
      List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
      ObservationRegistry observations = ObservationRegistry.create();
      observations
          .observationConfig()
          .observationHandler(
              new ObservationHandler<>() {
                @Override
                public boolean supportsContext(Observation.Context context) {
                  return true;
                }

                @Override
                public void onStop(Observation.Context context) {
                  stopped.add(context);
                }
              });
      ToolCallRunner observed =
          Runners.runner(
              mongo,
              published,
              AGENTS,
              PROPERTIES,
              Toolbox.of(List.of(tool), PROPERTIES.settings()),
              Runners.LEASE,
              observations,
              capture);
      runners.add(observed);
      ToolCall call = stored(pending(stored(subAgent()), "search_docs", "{\"query\":\"kafka\"}"));

      observed.onRequested(requested(call));
      awaitAnswered(call);

      Observation.Context span =
          stopped.stream()
              .filter(c -> "execute_tool search_docs".equals(c.getContextualName()))
              .findFirst()
              .orElseThrow();
      if (capture) {
        assertThat(span.getHighCardinalityKeyValue("gen_ai.tool.call.arguments").getValue())
            .isEqualTo("{\"query\":\"kafka\"}");
        assertThat(span.getHighCardinalityKeyValue("gen_ai.tool.call.result").getValue())
            .isEqualTo(ScriptedTool.RESULT);
      } else {
        assertThat(span.getHighCardinalityKeyValue("gen_ai.tool.call.arguments")).isNull();
        assertThat(span.getHighCardinalityKeyValue("gen_ai.tool.call.result")).isNull();
      }
    }
  }

  /**
   * The listener does not wait for its claims, and they make no findAndModify: each is a
   * conditional update in the calls' bulk write, and the calls taken are read back with those taken
   * meanwhile. Claims offered while one is being written go out in one bulk write. The tools are
   * held until every claim is made, so that the calls' other writes come after.
   */
  @Test
  void claimsOfferedWhileOneIsWrittenGoOutInOneBulkWrite() throws Exception {
    SubAgent subAgent = stored(subAgent());
    ToolCall first = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));
    List<ToolCall> more = new ArrayList<>();
    for (String query : List.of("redis", "mongodb", "raft")) {
      more.add(stored(pending(subAgent, "search_docs", "{\"query\":\"" + query + "\"}")));
    }
    tool.release = new CountDownLatch(1);
    List<CompletableFuture<Boolean>> offered = new CopyOnWriteArrayList<>();
    GATE.before(
        "update " + Collections.SUB_AGENT_TOOL_CALLS,
        () -> more.forEach(call -> offered.add(runner.offer(requested(call)))));
    COMMANDS.clear();

    assertThat(runner.offer(requested(first)).get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(GATE.opened()).isTrue();
    for (CompletableFuture<Boolean> claim : offered) {
      assertThat(claim.get(10, TimeUnit.SECONDS)).isTrue();
    }

    List<String> claims = COMMANDS.from(thread -> true);
    assertThat(claims).doesNotContain("findAndModify " + Collections.SUB_AGENT_TOOL_CALLS);
    assertThat(claims)
        .as("the first claim's bulk write, then the three offered meanwhile in one")
        .filteredOn(("update " + Collections.SUB_AGENT_TOOL_CALLS)::equals)
        .hasSize(2);
    tool.release.countDown();
    awaitAnswered(first);
    more.forEach(ToolCallRunnerTest::awaitAnswered);
    assertThat(tool.executions).hasValue(4);
  }

  /**
   * The listener's claim completes on another thread; the call runs in the trace of the event that
   * asked for it all the same, and its tool message's event carries that trace on.
   */
  @Test
  void aCallRunsInTheTraceOfTheEventThatAskedForIt() throws Exception {
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));
    SpanContext asking =
        SpanContext.create(
            "0af7651916cd43dd8448eb211c80319c",
            "b7ad6b7169203331",
            TraceFlags.getSampled(),
            TraceState.getDefault());

    try (Scope listener = Context.root().with(Span.wrap(asking)).makeCurrent()) {
      assertThat(runner.offer(requested(call)).get(10, TimeUnit.SECONDS)).isTrue();
    }
    awaitAnswered(call);

    assertThat(published.entries)
        .singleElement()
        .extracting(OutboxEntry::traceparent)
        .asString()
        .contains(asking.getTraceId());
  }

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
                SubAgentMessage.TOOL,
                new SubAgentMessageAdded.Carried(ScriptedTool.RESULT, call.modelCallId())));
    assertThat(published.entries.getFirst().topic()).isEqualTo(Topics.SUB_AGENT_MESSAGES);
    assertThat(published.entries.getFirst().key()).isEqualTo(subAgent.id());
  }

  /**
   * The tool message's event is sent carrying the result, but the message's outbox keeps it
   * without: the message holds the result already. Published again by the relay (here the broker
   * did not acknowledge), it has the agent loop read the message.
   */
  @Test
  void theToolMessagesOutboxKeepsItsEventWithoutTheResultItIsSentWith() {
    published.refusing = true;
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));

    runner.onRequested(requested(call));
    awaitAnswered(call);

    SubAgentMessage message = theToolMessageOf(call);
    assertThat(message.content()).isEqualTo(ScriptedTool.RESULT);
    OutboxEntry sent = published.entries.getFirst();
    assertThat(((SubAgentMessageAdded) RecordingPublisher.event(sent)).message())
        .isEqualTo(new SubAgentMessageAdded.Carried(ScriptedTool.RESULT, call.modelCallId()));
    assertThat(message.outbox())
        .as("not acknowledged, so kept")
        .singleElement()
        .satisfies(
            kept -> {
              assertThat(kept.eventId()).isEqualTo(sent.eventId());
              assertThat(kept.traceparent()).isEqualTo(sent.traceparent());
              SubAgentMessageAdded stored = (SubAgentMessageAdded) RecordingPublisher.event(kept);
              assertThat(stored.message()).isNull();
              assertThat(stored.messageId()).isEqualTo(message.id());
              assertThat(stored.occurredAt()).isEqualTo(message.createdAt());
            });
  }

  /**
   * A tool that ends before its start is shown has its start recorded with its result: one insert
   * into the chat's ledger for both, the start first, both stamped as recorded (the result's
   * latency says how long the tool ran). The tool message's event tells the agent loop where the
   * result stands, so that its next step goes after it without reading the ledger.
   */
  @Test
  void aQuickToolsStartIsRecordedWithItsResultInOneInsertWhosePositionIsPassedOn() {
    runner = runner(PROPERTIES.withStartShownAfter(Duration.ofMinutes(1)));
    SubAgent subAgent = stored(subAgent());
    mongo.insert(new Chat(subAgent.chatId(), "t", Instant.now()));
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));
    COMMANDS.clear();

    runner.onRequested(requested(call));
    awaitAnswered(call);

    List<RunEvent> events = new RunLedger(mongo).after(subAgent.chatId(), 0, 10);
    assertThat(events)
        .extracting(RunEvent::type, RunEvent::seq)
        .containsExactly(tuple(RunEvent.TOOL_CALL_START, 1L), tuple(RunEvent.TOOL_CALL_RESULT, 2L));
    assertThat(events.getFirst().at()).isEqualTo(events.getLast().at());
    assertThat(COMMANDS.from(Thread::isVirtual))
        .filteredOn(("insert " + Collections.RUN_EVENTS)::equals)
        .hasSize(1);
    assertThat(published.headers)
        .as("the tool message's event")
        .containsExactly(Map.of(RunLedger.POSITION_HEADER, "2"));
  }

  /**
   * A tool still running after a moment (50 ms by default; 0: at once) has its start shown on its
   * own, its result after it.
   */
  @Test
  void aSlowToolsStartIsShownWhileItRunsAndItsResultFollows() {
    for (Duration shownAfter : List.of(PROPERTIES.startShownAfter(), Duration.ZERO)) {
      ToolCallRunner shows = runner(PROPERTIES.withStartShownAfter(shownAfter));
      SubAgent subAgent = stored(subAgent());
      mongo.insert(new Chat(subAgent.chatId(), "t", Instant.now()));
      ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));
      tool.release = new CountDownLatch(1);
      RunLedger ledger = new RunLedger(mongo);

      shows.onRequested(requested(call));

      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> ledger.after(subAgent.chatId(), 0, 10),
              events -> events.stream().anyMatch(e -> e.type().equals(RunEvent.TOOL_CALL_START)));
      assertThat(reload(call).status()).as("still running").isEqualTo(ToolCallStatus.running);
      tool.release.countDown();
      awaitAnswered(call);
      assertThat(ledger.after(subAgent.chatId(), 0, 10))
          .as("shown after %s", shownAfter)
          .extracting(RunEvent::type)
          .containsExactly(RunEvent.TOOL_CALL_START, RunEvent.TOOL_CALL_RESULT);
    }
    assertThat(tool.executions).hasValue(2);
  }

  /**
   * The event carries the call as recorded: the claim is an update that reads nothing back, and
   * neither the call nor its sub-agent is read on the way to its answer.
   */
  @Test
  void aCallIsClaimedRunAndAnsweredWithoutReadingTheCallOrItsSubAgent() {
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));
    COMMANDS.clear();

    assertThat(runner.onRequested(requested(call))).isTrue();
    awaitAnswered(call);

    // The runner works on virtual threads; the test and its polling on platform threads.
    List<String> runners = COMMANDS.from(Thread::isVirtual);
    assertThat(runners)
        .contains(
            "update " + Collections.SUB_AGENT_TOOL_CALLS,
            "insert " + Collections.SUB_AGENT_MESSAGES)
        .doesNotContain(
            "find " + Collections.SUB_AGENT_TOOL_CALLS,
            "findAndModify " + Collections.SUB_AGENT_TOOL_CALLS,
            "find " + Collections.SUB_AGENTS);
    assertThat(tool.executions).hasValue(1);
    assertThat(theToolMessageOf(call).content()).isEqualTo(ScriptedTool.RESULT);
  }

  /**
   * An event published before events carried the call: the call is read back once, with the claim,
   * and runs as any other.
   */
  @Test
  void anEventWithoutItsCallHasTheCallReadBackWithTheClaim() {
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));
    COMMANDS.clear();

    assertThat(runner.onRequested(requestedWithoutTheCall(call))).isTrue();
    assertThat(runner.onRequested(requestedWithoutTheCall(call))).isFalse();
    awaitAnswered(call);

    assertThat(COMMANDS.from(Thread::isVirtual))
        .filteredOn(("find " + Collections.SUB_AGENT_TOOL_CALLS)::equals)
        .hasSize(1);
    assertThat(tool.executions).hasValue(1);
    assertThat(theToolMessageOf(call).content()).isEqualTo(ScriptedTool.RESULT);
  }

  /**
   * A call that knows the count its result expects ({@link ToolCall#resultAfter}) takes the place
   * after it in the bulk write, with no findAndModify of the sub-agent; when another result came
   * first, its result takes the next place all the same.
   */
  @Test
  void aResultTakesThePlaceItsCallExpectsUnlessAnotherCameFirst() {
    SubAgent subAgent = stored(subAgent());
    long answered = subAgent.messageCount();
    ToolCall first = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));
    ToolCall second = stored(pending(subAgent, "search_docs", "{\"query\":\"redis\"}"));
    expectResultsAfter(answered, first, second);

    runner.onRequested(requested(reload(first)));
    awaitAnswered(first);
    assertThat(theToolMessageOf(first).seq()).isEqualTo(answered + 1);
    assertThat(COMMANDS.from(Thread::isVirtual))
        .doesNotContain("findAndModify " + Collections.SUB_AGENTS);

    runner.onRequested(requested(reload(second)));
    awaitAnswered(second);
    assertThat(messagesOf(subAgent))
        .extracting(SubAgentMessage::toolCallId, SubAgentMessage::seq)
        .containsExactly(
            tuple(first.modelCallId(), answered + 1), tuple(second.modelCallId(), answered + 2));
    assertThat(COMMANDS.from(Thread::isVirtual))
        .containsOnlyOnce("findAndModify " + Collections.SUB_AGENTS);
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
    assertThat(sweeper.takeUp()).isZero();

    assertThat(tool.executions).hasValue(0);
    assertThat(reload(call).status()).isEqualTo(ToolCallStatus.running);
    assertThat(reload(call).lease()).isEqualTo(call.lease());
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
    assertThat(running.lease().holder()).isEqualTo(runner.calls().leases().holder());
    assertThat(running.lease().leaseUntil()).isAfter(now());
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
  void aToolTheAgentDoesNotListIsRefusedAsNotAllowedAndIsAnswered() {
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "launch_rockets", "{}"));

    runner.onRequested(requested(call));
    ToolCall done = awaitAnswered(call);

    assertThat(done.status()).isEqualTo(ToolCallStatus.failed);
    JsonNode error = JSON.readTree(done.error());
    assertThat(error.get("error_type").asString()).isEqualTo("not_allowed");
    assertThat(error.get("message").asString())
        .contains("researcher")
        .contains("launch_rockets")
        .contains("search_docs, read_doc");
    assertThat(theToolMessageOf(call).content()).isEqualTo(done.error());
  }

  @Test
  void aToolThatExistsIsStillRefusedToAnAgentThatDoesNotListIt() {
    SubAgent subAgent = stored(subAgent("filer"));
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"x\"}"));

    runner.onRequested(requested(call));
    ToolCall done = awaitAnswered(call);

    assertThat(tool.executions).hasValue(0);
    assertThat(JSON.readTree(done.error()).get("error_type").asString()).isEqualTo("not_allowed");
  }

  @Test
  void aCallStoredBeforeCallsNamedTheirAgentIsCheckedAgainstItsSubAgentsAgent() {
    SubAgent filer = stored(subAgent("filer"));
    ToolCall refused =
        stored(namingAgent(pending(filer, "search_docs", "{\"query\":\"x\"}"), null));
    SubAgent researcher = stored(subAgent("researcher"));
    ToolCall allowed =
        stored(namingAgent(pending(researcher, "search_docs", "{\"query\":\"x\"}"), null));

    runner.onRequested(requested(refused));
    runner.onRequested(requested(allowed));

    assertThat(JSON.readTree(awaitAnswered(refused).error()).get("error_type").asString())
        .isEqualTo("not_allowed");
    assertThat(awaitAnswered(allowed).status()).isEqualTo(ToolCallStatus.success);
    assertThat(tool.executions).hasValue(1);
  }

  @Test
  void theAgentTheCallNamesDecidesWhatItMayCall() {
    // The names differ only here: the agent loop copies the sub-agent's onto the call.
    SubAgent subAgent = stored(subAgent("researcher"));
    ToolCall named =
        stored(namingAgent(pending(subAgent, "search_docs", "{\"query\":\"x\"}"), "filer"));

    runner.onRequested(requested(named));

    ToolCall done = awaitAnswered(named);
    assertThat(tool.executions).hasValue(0);
    assertThat(JSON.readTree(done.error()).get("message").asString())
        .contains("agent 'filer' may not call 'search_docs'");
  }

  @Test
  void aListedToolThatNoSourceOffersFailsAsUnknown() {
    SubAgent subAgent = stored(subAgent("filer"));
    ToolCall call = stored(pending(subAgent, "files__read_file", "{}"));

    runner.onRequested(requested(call));
    ToolCall done = awaitAnswered(call);

    assertThat(JSON.readTree(done.error()).get("error_type").asString()).isEqualTo("unknown_tool");
    assertThat(theToolMessageOf(call).content()).isEqualTo(done.error());
  }

  @Test
  void theCallsOfOneTurnRunAtTheSameTime() throws Exception {
    int k = 4;
    SubAgent subAgent = stored(subAgent());
    CyclicBarrier allStarted = new CyclicBarrier(k);
    // Each execution waits until all k have started: run one after another, none would finish.
    tool.whileRunning =
        () -> {
          try {
            allStarted.await();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
    List<ToolCall> turn = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      turn.add(stored(pending(subAgent, "search_docs", "{\"query\":\"q" + i + "\"}")));
    }

    turn.forEach(call -> assertThat(runner.onRequested(requested(call))).isTrue());

    for (ToolCall call : turn) {
      assertThat(awaitAnswered(call).status()).isEqualTo(ToolCallStatus.success);
    }
    assertThat(tool.executions).hasValue(k);
    assertThat(messagesOf(subAgent)).hasSize(k);
  }

  @Test
  void aPerToolTimeoutOverridesTheDefault() {
    ToolCallProperties quickSearch =
        new ToolCallProperties(
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                Map.of(
                    "search_docs", new ToolSettings.Override(Duration.ofMillis(150), null, null)))
            .withRetry(NO_RETRIES);
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"slow\"}"));
    tool.release = new CountDownLatch(1);

    runner(quickSearch).onRequested(requested(call));
    ToolCall done = awaitAnswered(call);

    assertThat(JSON.readTree(done.error()).get("message").asString())
        .isEqualTo("search_docs did not finish within 150 ms");
  }

  @Test
  void aToolThatRunsTooLongFailsWithTimeout() {
    ToolCallProperties quick =
        new ToolCallProperties(Duration.ofMillis(200), Duration.ofSeconds(10))
            .withRetry(NO_RETRIES);
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
  void anMcpToolSlowPastItsTimeoutFailsWithTimeoutAndTheServerStaysUsable() {
    McpTestServers.assumeAvailable();
    String slow = "everything__trigger-long-running-operation";
    ToolCallProperties oneSecond =
        new ToolCallProperties(
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                Map.of(slow, new ToolSettings.Override(Duration.ofSeconds(1), null, null)))
            .withRetry(NO_RETRIES);
    McpServer everything =
        new McpServer("everything", McpTestServers.everything(null), oneSecond.settings());
    try {
      everything.start();
      ToolCallRunner withMcp = runner(oneSecond, new Toolbox(List.of(everything)));
      SubAgent subAgent = stored(subAgent("tester"));
      ToolCall call = stored(pending(subAgent, slow, "{\"duration\":30,\"steps\":3}"));
      ToolCall sum = stored(pending(subAgent, "everything__get-sum", "{\"a\":20,\"b\":22}"));

      withMcp.onRequested(requested(call));
      ToolCall done = awaitAnswered(call);
      withMcp.onRequested(requested(sum));

      assertThat(done.status()).isEqualTo(ToolCallStatus.failed);
      assertThat(JSON.readTree(done.error()))
          .isEqualTo(
              JSON.readTree(
                  "{\"error_type\":\"timeout\",\"message\":\""
                      + slow
                      + " did not finish within 1000 ms\"}"));
      assertThat(awaitAnswered(sum).result()).contains("42");
    } finally {
      everything.close();
    }
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

    assertThat(sweeper.takeUp()).isEqualTo(1);
    ToolCall done = awaitAnswered(call);

    assertThat(tool.executions).hasValue(1);
    assertThat(done.status()).isEqualTo(ToolCallStatus.success);
    assertThat(theToolMessageOf(call).content()).isEqualTo(ScriptedTool.RESULT);
    assertThat(published.events()).hasSize(1);
  }

  @Test
  void aNonIdempotentCallWhoseWorkerDiedIsNotRunAgainButFailsAsInterrupted() {
    ToolCallProperties notIdempotent =
        new ToolCallProperties(
            PROPERTIES.timeout(),
            PROPERTIES.unclaimedAfter(),
            Map.of("search_docs", new ToolSettings.Override(null, false, null)));
    ToolCallRunner careful = runner(notIdempotent);
    ToolCallSweeper carefulSweeper = Runners.sweeper(careful);
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

    assertThat(carefulSweeper.takeUp()).isEqualTo(1);
    ToolCall done = awaitAnswered(call);

    assertThat(tool.executions).hasValue(0);
    assertThat(done.status()).isEqualTo(ToolCallStatus.failed);
    assertThat(JSON.readTree(done.error()).get("error_type").asString()).isEqualTo("interrupted");
    assertThat(theToolMessageOf(call).content()).isEqualTo(done.error());
    assertThat(carefulSweeper.takeUp()).isZero();
    assertThat(careful.onRequested(requested(call))).isFalse();
    assertThat(tool.executions).hasValue(0);
  }

  @Test
  void aFinishedCallIsNeverRunAgainWhateverArrivesLater() throws Exception {
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));
    ToolCallRunner other = runner(PROPERTIES);
    runner.onRequested(requested(call));
    awaitAnswered(call);

    // Duplicate deliveries to both runners at once, and sweeps by both, after the call finished.
    CyclicBarrier together = new CyclicBarrier(2);
    try (ExecutorService both = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Boolean> first =
          both.submit(() -> together.await() >= 0 && runner.onRequested(requested(call)));
      Future<Boolean> second =
          both.submit(() -> together.await() >= 0 && other.onRequested(requested(call)));
      assertThat(List.of(first.get(), second.get())).containsExactly(false, false);
    }
    assertThat(sweeper.takeUp()).isZero();
    assertThat(Runners.sweeper(other).takeUp()).isZero();

    assertThat(tool.executions).hasValue(1);
    assertThat(messagesOf(subAgent)).hasSize(1);
    assertThat(published.entries).hasSize(1);
  }

  @Test
  void theSweeperRunsAPendingCallNobodyClaimedButLeavesAFreshOneToItsEvent() {
    SubAgent subAgent = stored(subAgent());
    ToolCall forgotten = stored(unclaimed(subAgent, "search_docs", "{\"query\":\"x\"}"));
    ToolCall fresh = stored(pending(subAgent, "search_docs", "{\"query\":\"y\"}"));

    assertThat(sweeper.takeUp()).isEqualTo(1);
    awaitAnswered(forgotten);

    assertThat(reload(fresh).status()).isEqualTo(ToolCallStatus.pending);
    assertThat(tool.executions).hasValue(1);
    assertThat(theToolMessageOf(forgotten).content()).isEqualTo(ScriptedTool.RESULT);
  }

  @Test
  void anEventThatArrivesBeforeItsCallIsRecordedClaimsNothingAndTheSweeperRunsTheCallOnce() {
    // The agent loop records a turn's calls after its answer, whose outbox holds their events: the
    // relay may publish them first, or the worker dies in between and the calls are recorded when
    // its turn is taken back, with no event of their own.
    SubAgent subAgent = stored(subAgent());
    ToolCall call = unclaimed(subAgent, "search_docs", "{\"query\":\"x\"}");

    assertThat(runner.onRequested(requested(call))).isFalse();
    assertThat(reload(call)).as("the event stores nothing").isNull();
    stored(call); // recorded, and not claimed since for longer than unclaimedAfter
    assertThat(sweeper.takeUp()).isEqualTo(1);
    awaitAnswered(call);

    assertThat(runner.onRequested(requested(call))).isFalse();
    assertThat(sweeper.takeUp()).isZero();
    assertThat(tool.executions).hasValue(1);
    assertThat(theToolMessageOf(call).content()).isEqualTo(ScriptedTool.RESULT);
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

    assertThat(sweeper.takeUp()).isEqualTo(1);
    awaitAnswered(crashedAfterRecording);

    assertThat(tool.executions).hasValue(0);
    assertThat(theToolMessageOf(crashedAfterRecording).content()).isEqualTo(result);
    assertThat(published.events()).hasSize(1);
    assertThat(sweeper.takeUp()).isZero();
  }

  @Test
  void aCallAwaitingApprovalIsNeverClaimedAndARejectionWhoseDeciderDiedIsAnsweredWithoutRunning() {
    SubAgent subAgent = stored(subAgent());
    ToolCall awaiting =
        stored(
            call(
                subAgent,
                "search_docs",
                "{\"query\":\"x\"}",
                ToolCallStatus.awaiting_approval,
                null,
                now().minusSeconds(60)));
    assertThat(runner.onRequested(requested(awaiting))).isFalse();
    assertThat(sweeper.takeUp()).isZero();

    // The orchestrator stored the rejection, with its hold, and died before the tool message.
    String rejected = "{\"error_type\":\"rejected\",\"message\":\"no\"}";
    mongo.remove(awaiting);
    stored(finished(awaiting, ToolCallStatus.failed, rejected, now().minusSeconds(1)));

    assertThat(sweeper.takeUp()).isEqualTo(1);
    awaitAnswered(awaiting);

    assertThat(tool.executions).hasValue(0);
    assertThat(theToolMessageOf(awaiting).content()).isEqualTo(rejected);
  }

  @Test
  void askUserBelongsToTheAgentLoopAndIsNeverClaimed() {
    SubAgent subAgent = stored(subAgent());
    ToolCall ask = stored(unclaimed(subAgent, "ask_user", "{\"question\":\"which?\"}"));

    assertThat(runner.onRequested(requested(ask))).isFalse();
    assertThat(sweeper.takeUp()).isZero();
    assertThat(reload(ask).status()).isEqualTo(ToolCallStatus.pending);
  }

  // --- helpers

  /** Records on the stored calls the count their results are expected after, as the loop does. */
  private static void expectResultsAfter(long resultAfter, ToolCall... calls) {
    for (ToolCall call : calls) {
      mongo.updateFirst(
          Query.query(Criteria.where("_id").is(call.id())),
          new Update().set("resultAfter", resultAfter),
          ToolCall.class);
    }
  }

  private static <T> T stored(T document) {
    return mongo.insert(document);
  }

  private static ToolCall reload(ToolCall call) {
    return mongo.findById(call.id(), ToolCall.class);
  }

  /** Waits until the call is finished and its tool message appended (its lease cleared). */
  private static ToolCall awaitAnswered(ToolCall call) {
    return Runners.awaitAnswered(mongo, call);
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
}
