package dev.agentrt.agentloop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.agents.TurnRequests;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.events.ToolCallRequested;
import dev.agentrt.events.Topics;
import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.Collections;
import dev.agentrt.store.ConfigVersion;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StepStarts;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentIds;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.store.TurnInput;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.store.Usage;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.MongoCommands;
import dev.agentrt.testing.MongoGate;
import dev.agentrt.testing.ScriptedModel;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The loop's outcomes, given stored state and a wake-up: the writes it makes and the events it
 * publishes, on a real MongoDB-protocol server and a real broker, with the model scripted.
 */
class AgentLoopTest {

  private static final AgentCatalog AGENTS =
      AgentCatalog.read(
          new ByteArrayInputStream(
              """
              agents:
                - name: researcher
                  description: Researches.
                  systemPrompt: You research.
                  tools: [search_docs, read_doc]
                  maxSteps: 3
                - name: writer
                  description: Writes.
                  systemPrompt: You write.
                  model: agent-model
                - name: scribe
                  description: Writes notes.
                  systemPrompt: You write notes.
                  tools: [search_docs, write_note]
                  approve: [write_note]
                - name: extractor
                  description: Extracts facts as JSON.
                  systemPrompt: You extract.
                  outputSchema:
                    type: object
                    required: [subject, facts]
                    properties:
                      subject: {type: string}
                      facts: {type: array, items: {type: string}}
              """
                  .getBytes(StandardCharsets.UTF_8)),
          "test agents");

  /** The configuration's version the loop under test keeps with its turns' input. */
  static final ConfigVersion CONFIG = new ConfigVersion("test-config");

  /** A turn's input, for answers a test stores itself. */
  static final TurnInput INPUT = new TurnInput(1, 1, List.of(), "digest", CONFIG.value());

  /** Limits the tests reach: the researcher's own maxSteps (3) is the tighter step limit. */
  private static final RunLimits LIMITS =
      new RunLimits(25, 1000, 0.9, Duration.ofMinutes(10), 3, 5);

  /** At most 3 tool calls of a turn run, so a test reaches the bound. */
  static final AgentLoopProperties PROPERTIES =
      new AgentLoopProperties(
          3,
          Duration.ofMillis(10),
          Duration.ofSeconds(5), // generous: a held model step must not time out on a busy box
          3,
          Duration.ofSeconds(2), // a test sees the end wait for an event
          Duration.ZERO, // a turn of one call ends at once: the wait for its result has tests
          Duration.ofMillis(50));

  private static final MongoCommands COMMANDS = new MongoCommands();
  private static final MongoGate GATE = new MongoGate();

  private static EmbeddedKafkaKraftBroker kafka;
  private static MongoServer mongoServer;
  private static MongoClient mongoClient;
  private static MongoTemplate mongo;
  private static Outbox outbox;
  private static SubAgentConversations conversations;
  private static RunLedger ledger;
  private static StepStarts starts;

  private final ScriptedModel model = new ScriptedModel();
  private AgentLoop loop;
  private SubAgent subAgent;

  @BeforeAll
  static void startInfrastructure() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1, Topics.TASKS, Topics.TOOL_CALLS);
    kafka.afterPropertiesSet();
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
    KafkaTemplate<String, byte[]> template =
        new KafkaTemplate<>(
            new DefaultKafkaProducerFactory<>(
                Map.of("bootstrap.servers", kafka.getBrokersAsString()),
                new StringSerializer(),
                new ByteArraySerializer()));
    outbox = new Outbox(new EventPublisher(template, "agent-loop-test"), mongo);
    conversations = new SubAgentConversations(mongo);
    ledger = new RunLedger(mongo);
    // A turn's start goes with its end (no model here thinks for a minute) unless a test says not.
    starts = new StepStarts(ledger, Duration.ofMinutes(1), "turn-start-timer");
  }

  @AfterAll
  static void stopInfrastructure() {
    mongoClient.close();
    mongoServer.shutdownNow();
    kafka.destroy();
  }

  /** The metrics of {@link #loop} and of the copies made by {@link #loopWith}. */
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @BeforeEach
  void aSubAgentWithItsFirstTwoMessages() {
    loop = loopWith(LIMITS);
    startSubAgent("researcher", null);
    COMMANDS.clear(); // what a test counts is its own
  }

  private void startSubAgent(String agent, String taskModel) {
    Instant now = Instant.now();
    String taskId = UUID.randomUUID().toString();
    String chatId = mongo.insert(new Chat(UUID.randomUUID().toString(), "test", now)).id();
    subAgent =
        mongo.insert(
            new SubAgent(
                Ids.derived(taskId, "sub-agent"),
                taskId,
                chatId,
                agent,
                SubAgentStatus.active,
                0,
                null,
                now,
                now,
                null,
                new SubAgent.Settings(taskModel, null, null, null, true))); // as agent-init does
    mongo.insert(
        new Task(
            taskId,
            chatId,
            Task.TYPE_AGENT,
            agent,
            "Research Kafka",
            taskModel,
            TaskStatus.running,
            subAgent.id(),
            null,
            null,
            null,
            now,
            now,
            List.of(),
            null,
            null,
            null,
            null,
            null,
            null,
            true));
    append(SubAgentMessage.SYSTEM, "You research.", null);
    append(SubAgentMessage.USER, "Research Kafka", null);
  }

  @Test
  void toolCallsAreStoredPendingAndAnnouncedAndTheLoopThenWaitsForTheirResults() {
    model.callsTools(
        new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"),
        new ModelToolCall("call_2", "search_docs", "{\"query\":\"MongoDB\"}"));

    loop.wake(subAgent.id());

    SubAgentMessage answer = await().until(this::lastMessage, m -> m.role().equals("assistant"));
    assertThat(answer.toolCalls()).extracting("id").containsExactly("call_1", "call_2");
    List<ToolCall> calls = toolCalls();
    assertThat(calls).extracting(ToolCall::status).containsOnly(ToolCallStatus.pending);
    assertThat(calls)
        .as("whose tools they must be")
        .extracting(ToolCall::agent)
        .containsOnly("researcher");
    assertThat(calls)
        .extracting(ToolCall::modelCallId)
        .containsExactlyInAnyOrder("call_1", "call_2");
    await().until(() -> conversations.messages(subAgent.id()).getLast().outbox().isEmpty());

    append(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
    loop.wake(subAgent.id());

    assertThat(model.requests()).as("one result of two is no reason for a turn").hasSize(1);
  }

  @Test
  void everyTurnKeepsWhatItWasGivenSoItsRequestCanBeBuiltAgainExactly() {
    SubAgentMessage first = searchedThenAnswered();

    List<SubAgentMessage> conversation = conversations.messages(subAgent.id());
    List<SubAgentMessage> answers =
        conversation.stream().filter(m -> m.role().equals("assistant")).toList();
    TurnRequests again =
        new TurnRequests(AGENTS, new dev.agentrt.agents.ToolDefinitions(mongo), CONFIG);
    for (int turn = 0; turn < answers.size(); turn++) {
      TurnInput input = answers.get(turn).input();
      assertThat(input.configVersion()).isEqualTo(CONFIG.value());
      List<SubAgentMessage> read =
          conversation.stream().filter(m -> m.seq() <= input.seq()).toList();
      assertThat(read).hasSize(input.messages());
      TurnRequests.Turn rebuilt =
          again.of(AGENTS.get("researcher"), read, answers.get(turn).model());
      assertThat(rebuilt.request()).isEqualTo(model.requests().get(turn));
      assertThat(rebuilt.input()).isEqualTo(input);
    }
    assertThat(first.input().messages()).as("system and user").isEqualTo(2);
    assertThat(first.input().tools()).startsWith("ask_user");
  }

  @Test
  void theEventsOfATurnAndOfTheCallsItAskedForCarryItsStepId() {
    SubAgentMessage first = searchedThenAnswered();

    assertThat(toolCalls()).extracting(ToolCall::stepId).containsExactly(first.id());
    List<RunEvent> steps =
        ledger.after(subAgent.chatId(), 0, 100).stream()
            .filter(e -> e.type().startsWith("step_"))
            .toList();
    assertThat(steps)
        .extracting(RunEvent::type, e -> e.data().get("turn"), e -> e.data().get("stepId"))
        .containsExactly(
            tuple(RunEvent.STEP_START, 1, first.id()),
            tuple(RunEvent.STEP_END, 1, first.id()),
            tuple(RunEvent.STEP_START, 2, lastAnswer().id()),
            tuple(RunEvent.STEP_END, 2, lastAnswer().id()));
    assertThat(steps.getLast().data()).as("no output schema").doesNotContainKey("validationOk");
  }

  @Test
  void whenEveryToolCallHasItsResultTheModelSeesThemAll() {
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .replies("Kafka is a log.");
    loop.wake(subAgent.id());
    await().until(this::lastMessage, m -> m.role().equals("assistant"));

    append(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests()).hasSize(2);
    assertThat(model.requests().get(1).messages())
        .extracting("role")
        .containsExactly("system", "user", "assistant", "tool");
  }

  @Test
  void aFinalAnswerCompletesTheSubAgentAndTheTaskWithItsResult() {
    model.replies("Kafka is a distributed log. Sources: docs/kafka.md");

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(task().result()).isEqualTo("Kafka is a distributed log. Sources: docs/kafka.md");
    assertThat(subAgent().status()).isEqualTo(SubAgentStatus.completed);
    await().until(() -> task().outbox().isEmpty());
    await().untilAsserted(() -> assertThat(subAgent().turn()).as("the turn is released").isNull());
  }

  /**
   * The task's write puts its {@code TaskCompleted} in the outbox, which the relay may publish
   * whenever this process is slow: the run's end must be in the ledger by then, so that the answer
   * the event leads to comes after it.
   */
  @Test
  void aRunsEndIsInTheLedgerBeforeTheTaskTakesTheEventThatEndsIt() {
    model.replies("Kafka is a distributed log.");
    List<String> atTheTaskWrite = new java.util.concurrent.CopyOnWriteArrayList<>();
    GATE.before(
        "findAndModify tasks",
        move ->
            move.getDocument("update")
                .getDocument("$push", new org.bson.BsonDocument())
                .containsKey("outbox"),
        () -> atTheTaskWrite.addAll(ledgerTypes()));

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(GATE.opened()).isTrue();
    assertThat(atTheTaskWrite).contains(RunEvent.STEP_END, RunEvent.RUN_END);
  }

  /**
   * A final answer's {@code step_end} and the run's {@code run_end} are one append, with the turn's
   * {@code step_start} when the model answered before it was shown on its own: one insert into the
   * chat's ledger, at consecutive positions.
   */
  @Test
  void aFinalAnswersStepEndAndTheRunsEndAreOneInsertAtConsecutivePositions() {
    model.replies("Kafka is a distributed log.");
    COMMANDS.clear();

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    List<RunEvent> events = ledger.after(subAgent.chatId(), 0, 100);
    assertThat(events)
        .extracting(RunEvent::type)
        .containsSubsequence(RunEvent.STEP_START, RunEvent.STEP_END, RunEvent.RUN_END);
    RunEvent stepEnd =
        events.stream().filter(e -> e.type().equals(RunEvent.STEP_END)).findFirst().orElseThrow();
    RunEvent runEnd =
        events.stream().filter(e -> e.type().equals(RunEvent.RUN_END)).findFirst().orElseThrow();
    RunEvent stepStart = events.get(events.indexOf(stepEnd) - 1);
    assertThat(stepStart.type()).isEqualTo(RunEvent.STEP_START);
    assertThat(runEnd.seq()).isEqualTo(stepEnd.seq() + 1);
    assertThat(stepStart.at()).as("recorded together").isEqualTo(runEnd.at());
    assertThat(
            COMMANDS.from(t -> true).stream()
                .filter(c -> c.equals("insert " + Collections.RUN_EVENTS))
                .toList())
        .as("the turn's one insert into the ledger: its start, its end and the run's")
        .hasSize(1);
  }

  /**
   * A model still thinking after a moment (50 ms by default; 0: at once) has the turn's start shown
   * on its own while it thinks; the turn's end follows it once the model answers.
   */
  @Test
  void aSlowModelsTurnHasItsStartShownWhileItThinksAndItsEndFollows() throws Exception {
    for (Duration shownAfter : List.of(PROPERTIES.startShownAfter(), Duration.ZERO)) {
      startSubAgent("researcher", null);
      try (StepStarts shows = new StepStarts(ledger, shownAfter, "turn-start-timer")) {
        CountDownLatch modelCalled = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        model.then(held(modelCalled, release, ScriptedModel.reply("Done.", List.of())));

        loopWith(shows).wake(subAgent.id());

        assertThat(modelCalled.await(10, TimeUnit.SECONDS)).isTrue();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> ledger.after(subAgent.chatId(), 0, 10),
                events -> events.stream().anyMatch(e -> e.type().equals(RunEvent.STEP_START)));
        assertThat(ledger.after(subAgent.chatId(), 0, 10))
            .as("shown after %s while the model thinks", shownAfter)
            .extracting(RunEvent::type)
            .doesNotContain(RunEvent.STEP_END);
        release.countDown();
        await().until(() -> task().status() == TaskStatus.success);
        assertThat(ledger.after(subAgent.chatId(), 0, 10))
            .extracting(RunEvent::type)
            .containsSubsequence(RunEvent.STEP_START, RunEvent.STEP_END, RunEvent.RUN_END)
            .containsOnlyOnce(RunEvent.STEP_START);
      }
    }
  }

  @Test
  void theToolCallsOfATurnPastItsLimitAreNotRunAndTheModelReadsWhy() {
    ModelToolCall[] five = new ModelToolCall[5];
    for (int i = 0; i < five.length; i++) {
      five[i] = new ModelToolCall("call_" + i, "search_docs", "{\"query\":\"q" + i + "\"}");
    }
    model.callsTools(five).replies("Done with three.");
    COMMANDS.clear();

    loop.wake(subAgent.id());

    await().until(() -> subAgent().turn() == null);
    // The two tool messages came after the answer: the turn's end looks at the conversation again,
    // with the sub-agent as its write returned it (the turn runs on a virtual thread).
    await()
        .untilAsserted(
            () ->
                assertThat(COMMANDS.from(Thread::isVirtual))
                    .containsSubsequence(
                        "findAndModify " + Collections.SUB_AGENTS,
                        "find " + Collections.SUB_AGENT_MESSAGES)
                    .doesNotContain("find " + Collections.SUB_AGENTS));
    long answer = lastAnswer().seq();
    assertThat(toolCalls())
        .as(
            "the first %d run, their results expected after the two messages of those not run",
            PROPERTIES.maxToolCallsPerTurn())
        .extracting(ToolCall::modelCallId, ToolCall::resultAfter)
        .containsExactlyInAnyOrder(
            tuple("call_0", answer + 2), tuple("call_1", answer + 3), tuple("call_2", answer + 4));
    assertThat(Published.on(kafka, Topics.TOOL_CALLS, subAgent.id(), 3))
        .as("each call's event carries the call as recorded: the tool-runner need not read it")
        .map(event -> ((ToolCallRequested) event).call())
        .containsExactlyInAnyOrderElementsOf(
            toolCalls().stream().map(c -> c.requested(c.createdAt()).call()).toList());
    assertThat(conversations.messages(subAgent.id()))
        .filteredOn(m -> m.role().equals(SubAgentMessage.TOOL))
        .extracting(SubAgentMessage::toolCallId)
        .containsExactly("call_3", "call_4");
    assertThat(runPendingCalls()).hasSize(3);
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    List<ModelMessage> seen = model.requests().getLast().messages();
    assertThat(seen).filteredOn(m -> m.role().equals("tool")).hasSize(5);
    assertThat(seen)
        .filteredOn(m -> "call_4".equals(m.toolCallId()))
        .singleElement()
        .satisfies(
            m ->
                assertThat(m.content())
                    .contains("\"error_type\":\"too_many_tool_calls\"")
                    .contains("at most 3 tool calls"));
  }

  @Test
  void askUserPutsTheSubAgentAndTheTaskInWaiting() {
    model.callsTools(
        new ModelToolCall("call_1", "ask_user", "{\"question\":\"What should I research?\"}"),
        new ModelToolCall("call_2", "search_docs", "{\"query\":\"x\"}"));

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.waiting);
    assertThat(subAgent().status()).isEqualTo(SubAgentStatus.waiting_for_user);
    assertThat(lastMessage().toolCalls()).extracting("name").containsExactly("ask_user");
    assertThat(toolCalls()).as("nothing to run: the question stands alone").isEmpty();
  }

  @Test
  void aGatedCallAwaitsApprovalWhileTheOtherCallsRunAndTheTurnWaitsForEveryResult() {
    startSubAgent("scribe", null);
    model
        .callsTools(
            new ModelToolCall("call_1", "write_note", "{\"title\":\"t\",\"content\":\"c\"}"),
            new ModelToolCall("call_2", "search_docs", "{\"query\":\"x\"}"))
        .replies("Saved.");

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.waiting);
    assertThat(subAgent().status()).isEqualTo(SubAgentStatus.active);
    assertThat(lastAnswer().toolCalls())
        .extracting(RequestedToolCall::id, RequestedToolCall::gated)
        .containsExactly(tuple("call_1", true), tuple("call_2", false));
    assertThat(toolCalls())
        .extracting(ToolCall::modelCallId, ToolCall::status)
        .containsExactlyInAnyOrder(
            tuple("call_1", ToolCallStatus.awaiting_approval),
            tuple("call_2", ToolCallStatus.pending));
    String gatedId = OutcomeRecorder.toolCallId(lastAnswer().id(), lastAnswer().toolCalls().get(0));
    assertThat(ledger.after(subAgent.chatId(), 0, 100))
        .filteredOn(e -> e.type().equals(RunEvent.APPROVAL_REQUESTED))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.data())
                    .containsEntry("toolCallId", gatedId)
                    .containsEntry("stepId", lastAnswer().id())
                    .containsEntry("toolName", "write_note")
                    .containsEntry("tool", "write_note")
                    .containsEntry("toolInput", "{\"title\":\"t\",\"content\":\"c\"}"));
    await().until(() -> task().outbox().isEmpty()); // its TaskWaiting is published

    // approved (as the orchestrator stores it) and still running: a redelivery changes nothing
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(gatedId)),
        new org.springframework.data.mongodb.core.query.Update()
            .set("status", ToolCallStatus.running),
        ToolCall.class);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(task().id())),
        new org.springframework.data.mongodb.core.query.Update().set("status", TaskStatus.running),
        Task.class);
    loop.wake(subAgent.id());
    assertThat(task().status())
        .as("not waiting again for a decided call")
        .isEqualTo(TaskStatus.running);

    append(SubAgentMessage.TOOL, "{\"results\":[]}", "call_2");
    loop.wake(subAgent.id());
    assertThat(model.requests()).as("the gated call has no result yet").hasSize(1);
    loop.enforceDeadline(subAgent.id());
    assertThat(subAgent().deadline()).as("no deadline while a person decides").isNull();

    // the approved call's result; the orchestrator's move of the task back was lost
    append(SubAgentMessage.TOOL, "{\"path\":\"data/notes/t.md\"}", "call_1");
    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests().get(1).messages())
        .filteredOn(m -> m.role().equals("tool"))
        .extracting(ModelMessage::toolCallId)
        .containsExactly("call_2", "call_1");
  }

  @Test
  void aModelThatKeepsFailingIsRetriedThenTheRunFailsVisibly() {
    model
        .fails(ScriptedModel.transientFailure())
        .fails(ScriptedModel.transientFailure())
        .fails(ScriptedModel.transientFailure());

    loop.wake(subAgent.id());

    // The worker's last write ends the turn: the failure is finished by then.
    await()
        .until(() -> task().status() == TaskStatus.failed && !storedSubAgent().containsKey("turn"));
    assertThat(model.requests()).hasSize(3);
    assertThat(task().error()).contains("503");
    assertThat(task().failureReason()).as("stored with the failure").isEqualTo("model_error");
    assertThat(subAgent().status()).isEqualTo(SubAgentStatus.failed);
    assertThat(lastMessage().role()).isEqualTo("system");
    assertThat(lastMessage().content()).contains("model_error");
    assertThat(storedSubAgent()).as("finished").doesNotContainKey(SubAgent.UNFINISHED_FAILURE);
  }

  @Test
  void aFailureWhoseWorkerDiedBeforeItFailedTheTaskIsFinishedByTheSweep() {
    recorder().recordFailure(subAgent(), lastMessage().seq(), "model_error", "the model is down");
    assertThat(subAgent().status()).isEqualTo(SubAgentStatus.failed);
    assertThat(task().status()).isEqualTo(TaskStatus.running);
    assertThat(loop.unfinishedFailures())
        .as("within a lease its worker may still finish it")
        .doesNotContain(subAgent.id());
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update()
            .set(SubAgent.UNFINISHED_FAILURE + ".at", Instant.now().minus(Duration.ofHours(1))),
        SubAgent.class);

    assertThat(loop.unfinishedFailures()).contains(subAgent.id());
    loop.finishFailure(subAgent.id()); // what the sweeper does with it

    assertThat(task().status()).isEqualTo(TaskStatus.failed);
    assertThat(task().error()).isEqualTo("the model is down");
    assertThat(task().failureReason()).isEqualTo("model_error");
    await().until(() -> task().outbox().isEmpty()); // TaskFailed published
    assertThat(storedSubAgent()).doesNotContainKey(SubAgent.UNFINISHED_FAILURE);
    assertThat(loop.unfinishedFailures()).doesNotContain(subAgent.id());
  }

  @Test
  void aTransientFailureIsRetriedAndTheTurnSucceeds() {
    model.fails(ScriptedModel.transientFailure()).replies("Done.");

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests()).hasSize(2);
  }

  @Test
  void twoWakeUpsAtOnceMakeExactlyOneModelCall() throws Exception {
    CountDownLatch modelCalled = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    model.then(held(modelCalled, release, ScriptedModel.reply("Done.", List.of())));
    CyclicBarrier together = new CyclicBarrier(2);
    Runnable wake =
        () -> {
          try {
            together.await();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          loop.wake(subAgent.id());
        };
    Thread first = Thread.ofVirtual().start(wake);
    Thread second = Thread.ofVirtual().start(wake);
    first.join();
    second.join();
    assertThat(modelCalled.await(10, TimeUnit.SECONDS)).isTrue();

    loop.wake(subAgent.id()); // a redelivered event while the turn is in flight
    release.countDown();

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests()).hasSize(1);
  }

  @Test
  void aWakeWhileThisLoopHoldsTheTurnReadsNothingAndItsEndLooksAgain() throws Exception {
    CountDownLatch release = aTurnHeldAtTheModel();
    Thread test = Thread.currentThread();
    COMMANDS.clear();

    loop.wake(subAgent.id()); // the event of a message that came during the turn

    assertThat(COMMANDS.from(t -> t == test)).as("the wake's commands").isEmpty();
    release.countDown();
    await().until(() -> !toolCalls().isEmpty());
    append(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
    // The result's own wake comes while the turn may still be held: its end takes the next turn.
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests()).hasSize(2);
  }

  /**
   * A message that comes as the turn ends, its own wake finding the turn still taken, is looked at
   * by the end: the end in the bulk write matches only a conversation that still ends with the
   * answer; otherwise the end reads the messages after the answer and takes the next turn in one
   * write, with neither a read nor a findAndModify of the sub-agent.
   */
  @Test
  void aMessageThatComesAsTheTurnEndsIsLookedAtByTheEnd() {
    AtomicReference<List<String>> beforeTheNextTurn = aToolRoundThenAnAnswer();
    GATE.before(
        "update " + Collections.SUB_AGENTS,
        AgentLoopTest::endsATurn,
        () -> {
          appendElsewhere(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
          loop.wake(subAgent.id()); // the result's event: the turn is still taken
        });

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(GATE.opened()).isTrue();
    assertThat(model.requests()).hasSize(2);
    assertThat(beforeTheNextTurn.get())
        .doesNotContain(
            "find " + Collections.SUB_AGENTS, "findAndModify " + Collections.SUB_AGENTS);
  }

  /**
   * A result whose event carries it and comes as its turn ends (the end in the bulk write finds it
   * stored) has the next turn taken by the write that ends this one, with nothing read: neither the
   * messages after the answer nor the sub-agent.
   */
  @Test
  void aCarriedResultThatComesAsTheTurnEndsHasTheNextTurnTakenWithNothingRead() {
    AtomicReference<List<String>> beforeTheNextTurn = aToolRoundThenAnAnswer();
    // The result's event comes at once: the turn is still taken.
    aResultStoredAsTheTurnEnds(result -> loop.wake(result));

    loop.wake(subAgent.id());

    assertTheNextTurnTookTheCarriedResultWithNothingRead(beforeTheNextTurn);
  }

  /**
   * A result stored before its turn's end was written, whose event comes only after that end missed
   * (the usual race of an instant tool): the end waits for the event, which carries the result, and
   * has the next turn taken by the write that ends this one, with nothing read.
   */
  @Test
  void aResultWhoseEventComesAfterTheEndMissedHasTheNextTurnTakenWithNothingRead() {
    AtomicReference<List<String>> beforeTheNextTurn = aToolRoundThenAnAnswer();
    onTheTurnsWorker(
        worker ->
            // The event comes once the end has missed and waits for it, not before.
            aResultStoredAsTheTurnEnds(result -> onceItWaits(worker, () -> loop.wake(result))));

    loop.wake(subAgent.id());

    assertTheNextTurnTookTheCarriedResultWithNothingRead(beforeTheNextTurn);
    assertOneWait(meters, "agentrt.agent-loop.event-waits", "came");
  }

  /**
   * A result stored before its turn's end was written, whose event does not come (it went to
   * another instance, or its publisher died before sending it): the end waits for it as long as it
   * may, then reads the result and has the next turn taken.
   */
  @Test
  void aResultWhoseEventDoesNotComeIsReadOnceTheEndHasWaitedForIt() {
    MeterRegistry ownMeters = new SimpleMeterRegistry();
    AgentLoop patient = loopWith(Duration.ofMillis(100), ownMeters);
    AtomicReference<List<String>> beforeTheNextTurn = aResultStoredBeforeTheEndItsEventNeverSent();

    patient.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(beforeTheNextTurn.get()).contains("find " + Collections.SUB_AGENT_MESSAGES);
    assertOneWait(ownMeters, "agentrt.agent-loop.event-waits", "timed_out");
  }

  /**
   * A fast tool's result whose event comes while the turn that asked for it waits for it ({@code
   * result-wait}) has the next turn taken by the write that ends this one: no write ends the first
   * turn alone, and nothing is read.
   */
  @Test
  void aResultWhoseEventComesWhileItsTurnWaitsHasTheNextTurnTakenByTheEndsWrite() {
    MeterRegistry ownMeters = new SimpleMeterRegistry();
    AgentLoop waiting =
        loopWaitingForResults(Duration.ofMinutes(1), ownMeters); // outlasts the test
    AtomicReference<List<String>> beforeTheNextTurn = aToolRoundThenAnAnswer();
    AtomicInteger turnsAskedAtTheFirstEnd = new AtomicInteger();
    onTheTurnsWorker(
        worker -> {
          GATE.before(
              "update " + Collections.SUB_AGENTS,
              AgentLoopTest::endsATurn,
              () -> turnsAskedAtTheFirstEnd.set(model.requests().size()));
          onceItWaits(
              worker,
              () -> waiting.wake(appendCarried(SubAgentMessage.TOOL, "{\"hits\":1}", "call_1")));
        });

    waiting.wake(subAgent.id());

    assertTheNextTurnTookTheCarriedResultWithNothingRead(beforeTheNextTurn);
    assertThat(turnsAskedAtTheFirstEnd)
        .as("the first write that ends a turn alone ends the second")
        .hasValue(2);
    assertOneWait(ownMeters, "agentrt.agent-loop.result-waits", "came");
  }

  /**
   * A result that does not come while its turn waits (a slow tool) leaves the turn to end alone
   * once the wait is over; the result's event then takes the next turn, as it would have.
   */
  @Test
  void aResultThatDoesNotComeWhileItsTurnWaitsIsTakenUpByItsEventAfterTheEnd() {
    MeterRegistry ownMeters = new SimpleMeterRegistry();
    AgentLoop waiting = loopWaitingForResults(Duration.ofMillis(100), ownMeters);
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .replies("Kafka is a log.");

    waiting.wake(subAgent.id());
    await().until(() -> subAgent().turn() == null && !toolCalls().isEmpty());
    waiting.wake(appendCarried(SubAgentMessage.TOOL, "{\"hits\":1}", "call_1"));

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests()).hasSize(2);
    assertOneWait(ownMeters, "agentrt.agent-loop.result-waits", "timed_out");
  }

  /**
   * While this instance's events come late (its consumer lags under a burst), an end that misses
   * because a result was stored first does not wait for the result's event, which would come only
   * after the queue before it: it reads the result at once and has the next turn taken.
   */
  @Test
  void whileEventsComeLateAnEndThatMissedReadsAtOnceInsteadOfWaitingForTheEvent() {
    MeterRegistry ownMeters = new SimpleMeterRegistry();
    AgentLoop lagging = loopWith(Duration.ofMinutes(10), ownMeters); // a wait outlasts the test
    lagging.wake( // an event of a message stored an hour before it came
        new SubAgentMessageAdded(
            UUID.randomUUID().toString(),
            Instant.now().minus(Duration.ofHours(1)),
            "another-sub-agent",
            "another-task",
            subAgent.chatId(),
            UUID.randomUUID().toString(),
            SubAgentMessage.TOOL));
    AtomicReference<List<String>> beforeTheNextTurn = aResultStoredBeforeTheEndItsEventNeverSent();

    lagging.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(GATE.opened()).isTrue();
    assertThat(beforeTheNextTurn.get()).contains("find " + Collections.SUB_AGENT_MESSAGES);
    assertThat(model.requests().get(1).messages().getLast())
        .extracting(ModelMessage::role, ModelMessage::content, ModelMessage::toolCallId)
        .containsExactly("tool", "{\"hits\":1}", "call_1");
    assertOneWait(ownMeters, "agentrt.agent-loop.event-waits", "not_waited");
    // one event an hour late, weighing a quarter: 15 minutes
    assertThat(ownMeters.get("agentrt.agent-loop.event-lag").gauge().value())
        .isCloseTo(900, within(5.0));
  }

  /**
   * {@link #aToolRoundThenAnAnswer}, whose result ({@code {"hits":1}}) is stored just before the
   * turn's end is written, as a fast tool's is, and whose event is never sent.
   */
  private AtomicReference<List<String>> aResultStoredBeforeTheEndItsEventNeverSent() {
    AtomicReference<List<String>> beforeTheNextTurn = aToolRoundThenAnAnswer();
    GATE.before(
        "update " + Collections.SUB_AGENTS,
        AgentLoopTest::endsATurn,
        () -> elsewhere(() -> appendCarried(SubAgentMessage.TOOL, "{\"hits\":1}", "call_1")));
    return beforeTheNextTurn;
  }

  /**
   * Scripts a turn that calls {@code search_docs} ({@code call_1}), then the final answer; returns
   * where the loop's commands before that second turn are kept once it is asked.
   */
  private AtomicReference<List<String>> aToolRoundThenAnAnswer() {
    AtomicReference<List<String>> beforeTheNextTurn = new AtomicReference<>();
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .then(
            () -> {
              beforeTheNextTurn.set(COMMANDS.from(Thread::isVirtual));
              return ScriptedModel.reply("Kafka is a log.", List.of());
            });
    return beforeTheNextTurn;
  }

  /**
   * The run ended with a second turn that saw the result carried by its event, and none of the
   * loop's commands before it read the messages or the sub-agent.
   */
  private void assertTheNextTurnTookTheCarriedResultWithNothingRead(
      AtomicReference<List<String>> beforeTheNextTurn) {
    await().until(() -> task().status() == TaskStatus.success);
    assertThat(GATE.opened()).isTrue();
    assertThat(model.requests()).hasSize(2);
    assertThat(beforeTheNextTurn.get())
        .doesNotContain(
            "find " + Collections.SUB_AGENT_MESSAGES,
            "find " + Collections.SUB_AGENTS,
            "findAndModify " + Collections.SUB_AGENTS);
    assertThat(model.requests().get(1).messages().getLast())
        .extracting(ModelMessage::role, ModelMessage::content, ModelMessage::toolCallId)
        .containsExactly("tool", "{\"hits\":1}", "call_1");
  }

  /**
   * As a turn's end is about to be written, stores the call's result (with its event carrying it)
   * from another thread, then hands its event to {@code thenItsEvent}, still before the end.
   */
  private void aResultStoredAsTheTurnEnds(Consumer<SubAgentMessageAdded> thenItsEvent) {
    GATE.before(
        "update " + Collections.SUB_AGENTS,
        AgentLoopTest::endsATurn,
        () -> {
          AtomicReference<SubAgentMessageAdded> result = new AtomicReference<>();
          elsewhere(
              () -> result.set(appendCarried(SubAgentMessage.TOOL, "{\"hits\":1}", "call_1")));
          thenItsEvent.accept(result.get());
        });
  }

  /**
   * Runs {@code then} with the turn's worker thread, on that worker, as it builds the model request
   * (its read of the tool definitions).
   */
  private static void onTheTurnsWorker(Consumer<Thread> then) {
    GATE.before("find " + ToolCatalog.DEFINITIONS, () -> then.accept(Thread.currentThread()));
  }

  /** Runs {@code then} on a thread of its own once the turn's worker waits for a wake. */
  private static void onceItWaits(Thread worker, Runnable then) {
    Thread.ofPlatform()
        .start(
            () -> {
              await().pollInterval(Duration.ofMillis(1)).until(() -> waitsForAnEvent(worker));
              then.run();
            });
  }

  /**
   * Whether the turn's worker is waiting for a wake: the event of a message its end found, or its
   * call's result.
   */
  private static boolean waitsForAnEvent(Thread worker) {
    return Arrays.stream(worker.getStackTrace())
        .anyMatch(frame -> frame.getMethodName().equals("awaitOne"));
  }

  /**
   * A fast tool's result comes while its turn is still being carried out (here as the turn records
   * the call): its wake reads nothing, and the turn's end, told that a message came, reads only the
   * messages after its answer and takes the next turn in the write that ends this one: no read of
   * the sub-agent, no findAndModify of it.
   */
  @Test
  void aResultThatComesDuringItsTurnHasTheNextTurnTakenByTheTurnsEndInOneWrite() {
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .callsTools(new ModelToolCall("call_2", "search_docs", "{\"query\":\"logs\"}"));
    GATE.before(
        "insert " + Collections.SUB_AGENT_TOOL_CALLS,
        () -> {
          COMMANDS.clear();
          appendElsewhere(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1"); // not counted
          loop.wake(subAgent.id()); // the result's event
        });

    loop.wake(subAgent.id());

    await().until(() -> toolCalls().size() == 2 && subAgent().turn() == null);
    assertThat(GATE.opened()).isTrue();
    assertThat(model.requests()).hasSize(2);
    assertThat(model.requests().get(1).messages())
        .extracting("role")
        .containsExactly("system", "user", "assistant", "tool");
    List<String> loops = COMMANDS.from(Thread::isVirtual);
    assertThat(loops)
        .as("the wake, the end and the next turn read no sub-agent and return none")
        .doesNotContain(
            "find " + Collections.SUB_AGENTS, "findAndModify " + Collections.SUB_AGENTS);
    assertThat(loops)
        .as("the messages after the first turn's answer")
        .filteredOn(("find " + Collections.SUB_AGENT_MESSAGES)::equals)
        .hasSize(1);
  }

  /**
   * A result stored before its turn ended has the next turn taken by that end; its event, coming
   * during the next turn, is for a message that turn answers: not counted, it leaves that turn's
   * end to the bulk write, with no read of the messages and no findAndModify of the sub-agent.
   */
  @Test
  void aResultsEventDuringTheTurnThatAnswersItCostsThatTurnsEndNothing() throws Exception {
    CountDownLatch secondTurn = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .then(
            heldToolCall(
                secondTurn,
                release,
                new ModelToolCall("call_2", "search_docs", "{\"query\":\"logs\"}")));
    GATE.before(
        "insert " + Collections.SUB_AGENT_TOOL_CALLS,
        () -> appendElsewhere(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1"));
    loop.wake(subAgent.id());
    assertThat(secondTurn.await(10, TimeUnit.SECONDS)).isTrue();
    String result = lastMessage().id();
    COMMANDS.clear();

    loop.wake(subAgent.id(), result); // the result's event, late
    release.countDown();

    await().until(() -> toolCalls().size() == 2 && subAgent().turn() == null);
    assertThat(COMMANDS.from(Thread::isVirtual))
        .doesNotContain(
            "find " + Collections.SUB_AGENT_MESSAGES,
            "find " + Collections.SUB_AGENTS,
            "findAndModify " + Collections.SUB_AGENTS);
  }

  /**
   * A turn told of a message (an event without its message's id) that finds nothing after its
   * answer ends in the bulk write, not with a findAndModify, and keeps what it knew: its result's
   * wake then reads neither the sub-agent nor the whole conversation.
   */
  @Test
  void aTurnThatFindsNothingAfterItsAnswerEndsInTheBulkWriteAndKeepsWhatItKnew() throws Exception {
    CountDownLatch release = aTurnHeldAtTheModel();
    loop.wake(subAgent.id()); // a repeated event of the message the turn answers
    COMMANDS.clear();
    release.countDown();
    await().until(() -> subAgent().turn() == null && !toolCalls().isEmpty());
    assertThat(COMMANDS.from(Thread::isVirtual))
        .doesNotContain("findAndModify " + Collections.SUB_AGENTS);
    appendElsewhere(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
    String result = lastMessage().id();
    Thread test = Thread.currentThread();
    COMMANDS.clear();

    loop.wake(subAgent.id(), result);

    await().until(() -> task().status() == TaskStatus.success);
    List<String> loops = COMMANDS.from(t -> t == test || t.isVirtual());
    assertThat(loops).doesNotContain("find " + Collections.SUB_AGENTS);
    assertThat(loops).filteredOn(("find " + Collections.SUB_AGENT_MESSAGES)::equals).hasSize(1);
  }

  /**
   * A turn's end can be made though its writer was told it was not (a conditional write of another
   * process stamped the sub-agent before the bulk write read its tokens back: BulkWrites): the end
   * then reads the result, cannot take the next turn and finds the turn held by nobody, so it wakes
   * nothing. The result it read is not looked at: its own event takes the next turn.
   */
  @Test
  void aResultAnEndReadButCouldNotActOnIsTakenUpByItsOwnEvent() {
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .replies("Kafka is a log.");
    AtomicReference<Thread> ending = new AtomicReference<>();
    GATE.before(
        "update " + Collections.SUB_AGENTS,
        AgentLoopTest::endsATurn,
        () -> {
          appendElsewhere(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
          elsewhere( // the end made, as its writer, told otherwise, finds it
              () ->
                  mongo.updateFirst(
                      Query.query(Criteria.where("_id").is(subAgent.id())),
                      new Update().unset("turn"),
                      SubAgent.class));
          GATE.before(
              "findAndModify " + Collections.SUB_AGENTS, () -> ending.set(Thread.currentThread()));
        });
    loop.wake(subAgent.id());
    await().until(() -> ending.get() != null && !ending.get().isAlive());
    assertThat(model.requests()).hasSize(1);

    loop.wake(subAgent.id(), lastMessage().id()); // the result's event

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests().get(1).messages())
        .extracting("role")
        .containsExactly("system", "user", "assistant", "tool");
  }

  /**
   * A sub-agent's first turn is taken from its instruction's event, which carries the sub-agent as
   * agent-init made it and both its messages: neither the sub-agent nor its messages are read, and
   * the model sees the two messages as they were stored.
   */
  @Test
  void aFirstTurnIsTakenFromTheInstructionsEventWithNothingRead() {
    model.replies("Kafka is a log.");
    SubAgentMessageAdded instruction = starting();
    Thread test = Thread.currentThread();
    COMMANDS.clear();

    loop.wake(instruction);

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(COMMANDS.from(t -> t == test || t.isVirtual()))
        .doesNotContain(
            "find " + Collections.SUB_AGENT_MESSAGES,
            "find " + Collections.SUB_AGENTS,
            "find " + Collections.CHATS,
            "find " + Collections.TASKS);
    assertThat(model.requests().getFirst().messages())
        .extracting(ModelMessage::role, ModelMessage::content)
        .containsExactly(tuple("system", "You research."), tuple("user", "Research Kafka"));
  }

  /**
   * An instruction's event whose sub-agent counts more than its two messages (a follow-up came
   * first) takes no turn from what it carries: the take, conditioned on the count, misses, and the
   * wake reads the sub-agent and its messages, so the model sees all three.
   */
  @Test
  void aFirstTurnWhoseSubAgentCountsMoreThanItsEventIsTakenFromWhatIsRead() {
    append(SubAgentMessage.USER, "Keep it short.", null);
    model.replies("Kafka is a log.");

    loop.wake(starting());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests().getFirst().messages())
        .extracting(ModelMessage::content)
        .containsExactly("You research.", "Research Kafka", "Keep it short.");
  }

  /**
   * A result whose event carries it, right after what a turn of this instance knew, has the next
   * turn taken with nothing read, neither the messages nor the sub-agent; the model sees the result
   * as it was stored.
   */
  @Test
  void aResultWhoseEventCarriesItHasTheNextTurnTakenWithNothingRead() {
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .replies("Kafka is a log.");
    loop.wake(subAgent.id());
    await().until(() -> subAgent().turn() == null && !toolCalls().isEmpty());
    SubAgentMessageAdded result = appendCarried(SubAgentMessage.TOOL, "{\"hits\":1}", "call_1");
    assertThat(result.message()).as("a short result travels with its event").isNotNull();
    Thread test = Thread.currentThread();
    COMMANDS.clear();

    loop.wake(result);

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(COMMANDS.from(t -> t == test || t.isVirtual()))
        .doesNotContain(
            "find " + Collections.SUB_AGENT_MESSAGES,
            "find " + Collections.SUB_AGENTS,
            "findAndModify " + Collections.SUB_AGENTS);
    assertThat(model.requests().get(1).messages().getLast())
        .extracting(ModelMessage::role, ModelMessage::content, ModelMessage::toolCallId)
        .containsExactly("tool", "{\"hits\":1}", "call_1");
  }

  /**
   * A carried result whose place is not right after what is known (a message came between) is not
   * taken for it: the take, conditioned on the count, misses, and the wake goes on from the
   * messages it reads, so the model sees both.
   */
  @Test
  void aCarriedResultAfterAMessageNotKnownHasTheTurnTakenFromWhatIsRead() {
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .replies("Kafka is a log.");
    loop.wake(subAgent.id());
    await().until(() -> subAgent().turn() == null && !toolCalls().isEmpty());
    append(SubAgentMessage.USER, "Keep it short.", null); // its event not delivered yet
    SubAgentMessageAdded result = appendCarried(SubAgentMessage.TOOL, "{\"hits\":1}", "call_1");

    loop.wake(result);

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests().get(1).messages())
        .extracting(ModelMessage::role)
        .as("the result right after its call, then the message that came while it ran")
        .containsExactly("system", "user", "assistant", "tool", "user");
  }

  /**
   * Of two results, the first one's carried event calls for nothing yet: it is not kept as known
   * (its place is not confirmed) but read; the second's event then takes the turn without a read.
   */
  @Test
  void ofTwoCarriedResultsOnlyTheLastTakesTheTurnWithoutARead() {
    model
        .callsTools(
            new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"),
            new ModelToolCall("call_2", "search_docs", "{\"query\":\"MongoDB\"}"))
        .replies("Both.");
    loop.wake(subAgent.id());
    await().until(() -> subAgent().turn() == null && toolCalls().size() == 2);
    Thread test = Thread.currentThread();
    COMMANDS.clear();

    loop.wake(appendCarried(SubAgentMessage.TOOL, "{\"hits\":1}", "call_1"));

    assertThat(COMMANDS.from(t -> t == test))
        .filteredOn(("find " + Collections.SUB_AGENT_MESSAGES)::equals)
        .hasSize(1);
    assertThat(model.requests()).hasSize(1);
    COMMANDS.clear();

    loop.wake(appendCarried(SubAgentMessage.TOOL, "{\"hits\":2}", "call_2"));

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(COMMANDS.from(t -> t == test || t.isVirtual()))
        .doesNotContain("find " + Collections.SUB_AGENT_MESSAGES, "find " + Collections.SUB_AGENTS);
    assertThat(model.requests().get(1).messages())
        .extracting(ModelMessage::role, ModelMessage::content)
        .endsWith(tuple("tool", "{\"hits\":1}"), tuple("tool", "{\"hits\":2}"));
  }

  /** An event of a message looked at already, after its turn ended here, reads nothing. */
  @Test
  void aRepeatedEventOfAResultLookedAtAlreadyReadsNothing() {
    model
        .callsTools(
            new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"),
            new ModelToolCall("call_2", "search_docs", "{\"query\":\"MongoDB\"}"))
        .replies("Both.");
    loop.wake(subAgent.id());
    await().until(() -> subAgent().turn() == null && toolCalls().size() == 2);
    appendElsewhere(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
    String first = lastMessage().id();
    loop.wake(subAgent.id(), first);
    Thread test = Thread.currentThread();
    COMMANDS.clear();

    loop.wake(subAgent.id(), first); // delivered again

    assertThat(COMMANDS.from(t -> t == test || t.isVirtual())).isEmpty();
    appendElsewhere(SubAgentMessage.TOOL, "{\"results\":[]}", "call_2");
    loop.wake(subAgent.id(), lastMessage().id());
    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests().get(1).messages())
        .extracting("role")
        .containsExactly("system", "user", "assistant", "tool", "tool");
  }

  /**
   * The end reads the messages after its answer, but another message comes before its write takes
   * the next turn: the write misses, and the end reads the sub-agent back and takes the next turn
   * with every message.
   */
  @Test
  void aMessageThatComesAsTheEndTakesTheNextTurnIsInThatTurn() {
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .replies("Kafka is a log.");
    AtomicBoolean cameBetween = new AtomicBoolean();
    GATE.before(
        "insert " + Collections.SUB_AGENT_TOOL_CALLS,
        () -> {
          appendElsewhere(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
          loop.wake(subAgent.id()); // the result's event, during the turn
          GATE.before(
              "update " + Collections.SUB_AGENTS,
              AgentLoopTest::takesTheNextTurnHeldHere,
              () -> {
                append(SubAgentMessage.USER, "And Redis?", null);
                cameBetween.set(true);
              });
        });

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(cameBetween).isTrue();
    assertThat(model.requests()).hasSize(2);
    assertThat(model.requests().get(1).messages())
        .extracting("role")
        .containsExactly("system", "user", "assistant", "tool", "user");
  }

  /** Whether a bulk write of sub-agents has a write that ends a turn (unsets it). */
  private static boolean endsATurn(BsonDocument update) {
    return update.getArray("updates").stream()
        .anyMatch(
            u ->
                u.asDocument()
                    .getDocument("u")
                    .getDocument("$unset", new BsonDocument())
                    .containsKey("turn"));
  }

  /** Whether a bulk write of sub-agents has the write that takes a turn held here for the next. */
  private static boolean takesTheNextTurnHeldHere(BsonDocument update) {
    return update.getArray("updates").stream()
        .map(BsonValue::asDocument)
        .anyMatch(
            u ->
                u.getDocument("q").toJson().contains("\"turn.holder\"")
                    && u.getDocument("u")
                        .getDocument("$set", new BsonDocument())
                        .containsKey("turn.seq"));
  }

  /**
   * A result that comes after the turn that asked for it ended here is looked at from what that
   * turn knew: the sub-agent is not read, only the messages after the answer are, and the next turn
   * is taken while the sub-agent still has just those messages.
   */
  @Test
  void aResultAfterItsTurnEndedHereIsLookedAtWithoutReadingTheSubAgentOrTheWholeConversation() {
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .replies("Kafka is a log.");
    loop.wake(subAgent.id());
    await().until(() -> subAgent().turn() == null && !toolCalls().isEmpty());
    appendElsewhere(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
    Thread test = Thread.currentThread();
    COMMANDS.clear();
    GATE.before(
        "find " + Collections.SUB_AGENT_MESSAGES,
        find -> find.getDocument("filter").containsKey("seq"),
        () -> {});

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests().get(1).messages())
        .extracting("role")
        .containsExactly("system", "user", "assistant", "tool");
    List<String> loops = COMMANDS.from(t -> t == test || t.isVirtual());
    assertThat(loops).doesNotContain("find " + Collections.SUB_AGENTS);
    assertThat(loops).filteredOn(("find " + Collections.SUB_AGENT_MESSAGES)::equals).hasSize(1);
    assertThat(GATE.opened()).as("the messages after the answer only").isTrue();
  }

  /** What a turn knew is not trusted: a sub-agent cancelled since takes no turn from it. */
  @Test
  void aResultForASubAgentCancelledSinceItsTurnEndedTakesNoTurn() {
    model.callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"));
    loop.wake(subAgent.id());
    await().until(() -> subAgent().turn() == null && !toolCalls().isEmpty());
    moveSubAgentTo(SubAgentStatus.cancelled);
    append(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");

    loop.wake(subAgent.id());

    assertThat(subAgent().turn()).isNull();
    assertThat(model.requests()).hasSize(1);
  }

  /**
   * Of two calls' results, the first calls for nothing (the other is pending), the second for the
   * next turn: neither wake reads the sub-agent, the first takes nothing.
   */
  @Test
  void resultsOfParallelCallsAreLookedAtFromWhatTheTurnKnew() {
    model
        .callsTools(
            new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"),
            new ModelToolCall("call_2", "search_docs", "{\"query\":\"MongoDB\"}"))
        .replies("Both.");
    loop.wake(subAgent.id());
    await().until(() -> subAgent().turn() == null && toolCalls().size() == 2);
    Thread test = Thread.currentThread();
    appendElsewhere(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
    COMMANDS.clear();

    loop.wake(subAgent.id());

    assertThat(COMMANDS.from(t -> t == test || t.isVirtual()))
        .containsExactly("find " + Collections.SUB_AGENT_MESSAGES);
    appendElsewhere(SubAgentMessage.TOOL, "{\"results\":[]}", "call_2");
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests().get(1).messages())
        .extracting("role")
        .containsExactly("system", "user", "assistant", "tool", "tool");
    assertThat(COMMANDS.from(t -> t == test || t.isVirtual()))
        .doesNotContain("find " + Collections.SUB_AGENTS);
  }

  @Test
  void aWakeUpAfterTheAnswerIsStoredCallsTheModelNoMore() {
    model.replies("Done.");
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);

    loop.wake(subAgent.id());

    assertThat(model.requests()).hasSize(1);
    assertThat(conversations.messages(subAgent.id())).hasSize(3);
  }

  @Test
  void theStepLimitEndsARunThatDoesNotFinish() {
    for (int i = 0; i < 3; i++) {
      String callId = "call_" + i;
      model.callsTools(new ModelToolCall(callId, "search_docs", "{\"query\":\"x\"}"));
      loop.wake(subAgent.id());
      await().until(() -> lastMessage().role().equals("assistant"));
      append(SubAgentMessage.TOOL, "{\"results\":[]}", callId);
    }

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.failed);
    assertThat(task().error())
        .contains("step limit: 3 model turns")
        .contains("Done so far: 3 model turn(s), 3 tool call(s) (search_docs ×3)");
    assertThat(model.requests()).hasSize(3);
    assertThat(failureReason()).isEqualTo("step_limit_exceeded");
    assertThat(task().failureReason()).isEqualTo("step_limit_exceeded");
  }

  @Test
  void theChatsStepLimitTightensTheAgentsOne() {
    // As agent-init copies them from the chat.
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update()
            .set("settings.limits", new ChatLimits(1, null, null)),
        SubAgent.class);
    assertTheSecondTurnIsStoppedByAStepLimitOfOne();
  }

  @Test
  void aSubAgentStoredBeforeSubAgentsCarriedTheChatsLimitsHasThemReadFromTheChat() {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.chatId())),
        new org.springframework.data.mongodb.core.query.Update()
            .set("limits", new ChatLimits(1, null, null)),
        Chat.class);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update().unset("settings"),
        SubAgent.class);
    assertTheSecondTurnIsStoppedByAStepLimitOfOne();
  }

  @Test
  void aRunWarnsAtNinetyPercentOfItsTokensAndFailsWhenTheyAreUsedUp() {
    model.then(() -> withTokens(500, 300, "call_1"));
    loop.wake(subAgent.id());
    await().until(() -> lastMessage().role().equals("assistant"));
    assertThat(ledgerTypes()).doesNotContain(RunEvent.BUDGET_WARNING);
    append(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");

    model.then(() -> withTokens(200, 50, "call_2"));
    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.failed);
    assertThat(failureReason()).isEqualTo("budget_exceeded");
    assertThat(task().error()).contains("1050 of 1000 tokens");
    assertThat(ledgerTypes()).containsSubsequence(RunEvent.BUDGET_WARNING, RunEvent.RUN_END);
    assertThat(toolCalls())
        .as("the call of the turn that used up the budget is not run")
        .filteredOn(c -> c.modelCallId().equals("call_2"))
        .singleElement()
        .satisfies(c -> assertThat(c.status()).isEqualTo(ToolCallStatus.failed))
        .satisfies(c -> assertThat(c.error()).contains("budget_exceeded"));
    assertThat(lastAnswer().outbox()).as("nothing left for the relay to publish").isEmpty();
  }

  @Test
  void aRunPastItsDeadlineFailsWhenWokenAndTheSweeperEndsOneNoEventWakes() {
    AgentLoop impatient = loopWith(new RunLimits(25, 1000, 0.9, Duration.ofMillis(1), 3, 5));
    model.callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"x\"}"));
    loop.wake(subAgent.id());
    await().until(() -> lastMessage().role().equals("assistant"));
    assertThat(subAgent().deadline()).as("set when the turn was claimed").isNotNull();

    assertThat(impatient.overdueRuns()).isEmpty(); // the stored deadline is 10 minutes away
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update()
            .set("deadline", Instant.now().minusSeconds(1)),
        SubAgent.class);
    assertThat(impatient.overdueRuns()).containsExactly(subAgent.id());
    impatient.enforceDeadline(subAgent.id()); // what the sweeper does with it

    assertThat(task().status()).isEqualTo(TaskStatus.failed);
    assertThat(failureReason()).isEqualTo("timeout");
    assertThat(task().error()).contains("deadline");
    assertThat(toolCalls())
        .as("a call no tool-runner started never starts once the run has ended")
        .extracting(ToolCall::status)
        .containsExactly(ToolCallStatus.failed);
  }

  @Test
  void aTurnWhoseLeaseExpiredIsListedForTheSweeperAndTakenAgain() {
    model.replies("Done.");
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update()
            .set("turn", new SubAgent.Turn(2, "a-dead-instance", Instant.now().minusSeconds(1))),
        SubAgent.class);

    assertThat(loop.expiredTurns()).contains(subAgent.id()); // the store is shared by the tests
    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests()).hasSize(1);
  }

  @Test
  void aWakeThatFindsTheTurnHeldByALiveWorkerLeavesTheConversationToIt() {
    model.replies("Done.");
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update()
            .set("turn", new SubAgent.Turn(2, "a-live-instance", Instant.now().plusSeconds(60))),
        SubAgent.class);
    Thread test = Thread.currentThread();
    COMMANDS.clear();

    loop.wake(subAgent.id());

    assertThat(COMMANDS.from(t -> t == test))
        .as("the sub-agent is read; its conversation is its worker's to look at")
        .containsExactly("find " + Collections.SUB_AGENTS);
    assertThat(model.requests()).isEmpty();
    assertThat(subAgent().turn().holder()).isEqualTo("a-live-instance");
  }

  @Test
  void aTurnTakenAgainWhileItsFirstWorkerWaitsRecordsAndRunsOnlyTheStoredAnswersCalls()
      throws Exception {
    // Worker A's model call outlives the turn's lease; worker B, another copy of the loop, takes
    // the turn again and its model answers otherwise, at once.
    ScriptedModel slowModel = new ScriptedModel();
    CountDownLatch slowCalled = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    slowModel.then(
        heldToolCall(
            slowCalled,
            release,
            new ModelToolCall("call_late", "search_docs", "{\"query\":\"late\"}")));
    ExecutorService slowTurns = Executors.newVirtualThreadPerTaskExecutor();
    loopWith(LIMITS, slowModel, slowTurns).wake(subAgent.id());
    assertThat(slowCalled.await(10, TimeUnit.SECONDS)).isTrue();
    expireTheTurnsLease();
    model.callsTools(new ModelToolCall("call_first", "search_docs", "{\"query\":\"first\"}"));

    assertThat(loop.expiredTurns()).contains(subAgent.id());
    loop.wake(subAgent.id()); // what the sweeper does with it: B takes the turn
    await().until(() -> subAgent().turn() == null);
    release.countDown(); // A's answer arrives, after B's is stored
    slowTurns.shutdown();
    assertThat(slowTurns.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

    assertThat(conversations.messages(subAgent.id()))
        .filteredOn(m -> m.role().equals(SubAgentMessage.ASSISTANT))
        .singleElement()
        .satisfies(m -> assertThat(m.toolCalls()).extracting("id").containsExactly("call_first"));
    assertThat(toolCalls())
        .as("no call that the stored answer did not ask for")
        .extracting(ToolCall::modelCallId)
        .containsExactly("call_first");
    assertThat(runPendingCalls()).as("on its event").containsExactly("call_first");
    assertThat(runPendingCalls()).as("on a sweep").isEmpty();
    model.replies("Done.");
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests().getLast().messages())
        .extracting(ModelMessage::role, ModelMessage::toolCallId)
        .containsExactly(
            tuple("system", null),
            tuple("user", null),
            tuple("assistant", null),
            tuple("tool", "call_first"));
  }

  @Test
  void theCallsOfAnAnswerWhoseWorkerDiedBeforeRecordingThemAreRecordedWhenItsTurnIsTakenBack() {
    answerOfAWorkerThatDied(new RequestedToolCall("call_1", "search_docs", "{\"query\":\"x\"}"));
    assertThat(toolCalls()).isEmpty();
    expireTheTurnsLease();

    assertThat(loop.expiredTurns()).contains(subAgent.id());
    loop.wake(subAgent.id()); // what the sweeper does with it

    assertThat(toolCalls())
        .extracting(ToolCall::modelCallId, ToolCall::status)
        .containsExactly(tuple("call_1", ToolCallStatus.pending));
    assertThat(subAgent().turn()).as("the turn is over").isNull();
    assertThat(runPendingCalls()).containsExactly("call_1");
    assertThat(runPendingCalls()).isEmpty();
    model.replies("Done.");
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests()).hasSize(1);
    assertThat(model.requests().getFirst().messages())
        .extracting(ModelMessage::role)
        .containsExactly("system", "user", "assistant", "tool");
  }

  @Test
  void theCallsOfAnAnswerWhoseWorkerDiedAmongThemAreEachRecordedOnceWhenRecordedAgain() {
    answerOfAWorkerThatDied(
        new RequestedToolCall("call_1", "search_docs", "{\"query\":\"x\"}"),
        new RequestedToolCall("call_2", "search_docs", "{\"query\":\"y\"}"));
    OutcomeRecorder recorder = recorder();
    COMMANDS.clear();
    recorder.recordCalls(subAgent(), lastAnswer());
    assertThat(toolCalls()).hasSize(2);
    assertThat(COMMANDS.from(thread -> true))
        .as("the answer's calls go out in one insert")
        .filteredOn(("insert " + Collections.SUB_AGENT_TOOL_CALLS)::equals)
        .hasSize(1);
    // The worker died having recorded call_1 only.
    mongo.remove(
        Query.query(
            Criteria.where("_id")
                .is(
                    OutcomeRecorder.toolCallId(
                        lastAnswer().id(), lastAnswer().toolCalls().get(1)))),
        ToolCall.class);

    recorder.recordCalls(subAgent(), lastAnswer());
    recorder.recordCalls(subAgent(), lastAnswer());

    assertThat(toolCalls())
        .extracting(ToolCall::modelCallId, ToolCall::status)
        .containsExactlyInAnyOrder(
            tuple("call_1", ToolCallStatus.pending), tuple("call_2", ToolCallStatus.pending));
  }

  @Test
  void aFinalAnswerWhoseWorkerDiedBeforeItMovedTheTaskCompletesTheTaskWhenItsTurnIsTakenBack() {
    answerOfAWorkerThatDied("Kafka is a distributed log.");
    moveSubAgentTo(SubAgentStatus.completed); // the worker's last write before it died
    expireTheTurnsLease();
    assertThat(task().status()).isEqualTo(TaskStatus.running);

    assertThat(loop.expiredTurns()).contains(subAgent.id());
    loop.wake(subAgent.id()); // what the sweeper does with it

    assertThat(task().status()).isEqualTo(TaskStatus.success);
    assertThat(task().result()).isEqualTo("Kafka is a distributed log.");
    await().until(() -> task().outbox().isEmpty()); // TaskCompleted published
    assertThat(subAgent().turn()).as("the turn is over").isNull();
    assertThat(loop.expiredTurns()).doesNotContain(subAgent.id());
    assertThat(model.requests()).as("the stored answer is not asked for again").isEmpty();
  }

  @Test
  void aQuestionWhoseWorkerDiedBeforeItMovedTheTaskPutsTheTaskInWaitingWhenItsTurnIsTakenBack() {
    answerOfAWorkerThatDied(
        new RequestedToolCall("call_q", "ask_user", "{\"question\":\"Which cluster?\"}"));
    moveSubAgentTo(SubAgentStatus.waiting_for_user);
    expireTheTurnsLease();

    loop.wake(subAgent.id()); // what the sweeper does with it

    assertThat(task().status()).isEqualTo(TaskStatus.waiting);
    assertThat(subAgent().status()).isEqualTo(SubAgentStatus.waiting_for_user);
    assertThat(subAgent().turn()).as("the turn is over").isNull();
  }

  @Test
  void aFollowUpAfterAnAnswerWhoseWorkerDiedDoesNotKeepItsCallsFromBeingRecorded() {
    answerOfAWorkerThatDied(new RequestedToolCall("call_1", "search_docs", "{\"query\":\"x\"}"));
    append(SubAgentMessage.USER, "Also Redis", null);
    loop.wake(subAgent.id()); // the follow-up's event, while the dead worker's lease still runs
    assertThat(toolCalls()).isEmpty();
    expireTheTurnsLease();

    loop.wake(subAgent.id()); // the sweeper's

    assertThat(toolCalls()).extracting(ToolCall::modelCallId).containsExactly("call_1");
    assertThat(runPendingCalls()).containsExactly("call_1");
    model.replies("Kafka and Redis.");
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests()).hasSize(1);
    assertThat(model.requests().getFirst().messages())
        .as("the follow-up after the results of the calls made before it")
        .extracting(ModelMessage::role)
        .containsExactly("system", "user", "assistant", "tool", "user");
  }

  @Test
  void theSameCallWithTheSameResultThreeTimesIsPointedOutAndAFourthFailsTheRun() {
    startSubAgent("writer", null); // 25 steps: the researcher's 3 would stop it first
    for (int i = 0; i < 3; i++) {
      String callId = "call_" + i;
      model.callsTools(new ModelToolCall(callId, "read_doc", "{\"path\":\"a.md\"}"));
      loop.wake(subAgent.id());
      await().until(() -> lastMessage().role().equals("assistant"));
      append(SubAgentMessage.TOOL, "{\"content\":\"same\"}", callId);
    }

    model.callsTools(new ModelToolCall("call_3", "read_doc", "{\"path\":\"a.md\"}"));
    loop.wake(subAgent.id());
    // A redelivered event: still one warning. The warning's own event wakes the loop for the next
    // turn, so whichever wake-up comes after it may take that turn.
    loop.wake(subAgent.id());

    await().until(() -> lastMessage().role().equals("assistant"));
    assertThat(conversations.messages(subAgent.id()))
        .filteredOn(
            m -> m.content() != null && m.content().startsWith(ConversationState.STAGNATION_PROMPT))
        .hasSize(1);
    assertThat(model.requests()).as("no fourth turn without the warning").hasSize(4);
    assertThat(model.requests().getLast().messages().getLast().content())
        .startsWith(ConversationState.STAGNATION_PROMPT);
    append(SubAgentMessage.TOOL, "{\"content\":\"same\"}", "call_3");
    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.failed);
    assertThat(failureReason()).isEqualTo("stagnated");
    assertThat(task().error()).contains("4 times in a row");
  }

  @Test
  void theTurnAsksTheTasksModelBeforeTheAgentsAndTheAgentsBeforeTheDefault() {
    model.replies("Done.", "Done.", "Done.", "Done.");

    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    startSubAgent("writer", null);
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    startSubAgent("writer", "chat-model");
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    startSubAgent("researcher", "message-model");
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);

    assertThat(model.requests())
        .extracting(ModelRequest::model)
        .containsExactly(null, "agent-model", "chat-model", "message-model");
    assertThat(lastMessage().model()).isEqualTo("message-model");
  }

  @Test
  void aSubAgentStoredBeforeSubAgentsCarriedTheTasksModelAsksTheTasksModel() {
    startSubAgent("writer", "chat-model");
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update().unset("settings"),
        SubAgent.class);
    model.replies("Done.");

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(model.requests()).extracting(ModelRequest::model).containsExactly("chat-model");
  }

  @Test
  void aWakeAndItsTurnReadTheSubAgentOnceAndNeitherTheTaskNorTheChat() {
    model.callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"));
    Thread test = Thread.currentThread();
    COMMANDS.clear();

    loop.wake(subAgent.id());
    await().until(() -> subAgent().turn() == null);

    // The wake runs on this thread, the turn on a virtual one; the polling above on neither.
    List<String> loops = COMMANDS.from(t -> t == test || t.isVirtual());
    assertThat(loops)
        .as("the loop's commands")
        .contains("insert " + Collections.SUB_AGENT_MESSAGES)
        .doesNotContain("find " + Collections.TASKS, "find " + Collections.CHATS);
    assertThat(loops)
        .as("the sub-agent is read by the wake; whether it is still active, by the answer's write")
        .filteredOn(("find " + Collections.SUB_AGENTS)::equals)
        .hasSize(1);
    assertThat(loops)
        .as(
            "no message came during the turn: the answer's place is taken, and the turn ended, in"
                + " bulk writes")
        .doesNotContain("findAndModify " + Collections.SUB_AGENTS)
        .contains("update " + Collections.SUB_AGENTS);
    assertThat(subAgent().turn()).isNull();
    assertThat(toolCalls())
        .as("its result is expected right after the answer")
        .extracting(ToolCall::resultAfter)
        .containsExactly(lastAnswer().seq());
  }

  /**
   * A task that started no child task has no turns in its run but its own: the run's tokens are its
   * conversation's, so its turns write them without reading them back (an update in a bulk write,
   * not a findAndModify; the one findAndModify of the task is the run's end). The budget counts
   * them from the conversation: {@link
   * #aRunWarnsAtNinetyPercentOfItsTokensAndFailsWhenTheyAreUsedUp}.
   */
  @Test
  void theRunOfATaskWithoutChildrenIsCountedWithoutReadingItBack() {
    model.callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"));
    COMMANDS.clear();
    loop.wake(subAgent.id());
    await().until(() -> subAgent().turn() == null);
    append(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
    model.replies("Kafka is a log.");

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(runTokens()).as("two turns of 10 + 10 tokens").isEqualTo(40);
    List<String> turns = COMMANDS.from(Thread::isVirtual);
    assertThat(turns)
        .contains("update " + Collections.TASKS)
        .doesNotContain("find " + Collections.TASKS);
    assertThat(turns)
        .as("the run's end moves the task and gets it back, to publish its outbox, in one command")
        .filteredOn(("findAndModify " + Collections.TASKS)::equals)
        .hasSize(1);
  }

  /**
   * The task keeps its usage apart from its chat's, which is read as the chat's own plus its
   * tasks': a turn writes nothing to the chat.
   */
  @Test
  void eachStoredTurnsTokensAreOnItsMessageAndSummedOnTheSubAgentAndTheTask() {
    COMMANDS.clear();
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .then(
            () ->
                new ModelReply(
                    "Kafka is a log.", List.of(), new ModelReply.Usage(300, 40), "stop", 1));
    loop.wake(subAgent.id());
    await().until(this::lastMessage, m -> m.role().equals("assistant"));
    append(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    List<SubAgentMessage> answers =
        conversations.messages(subAgent.id()).stream()
            .filter(m -> m.role().equals("assistant"))
            .toList();
    assertThat(answers)
        .extracting(SubAgentMessage::usage)
        .containsExactly(new TurnUsage(10, 10), new TurnUsage(300, 40));
    assertThat(answers).extracting(SubAgentMessage::model).containsOnlyNulls();
    Usage expected = new Usage(310, 50, 2, null);
    assertThat(sums(Usage.summed(conversations.messages(subAgent.id())))).isEqualTo(expected);
    assertThat(sums(task().usage())).isEqualTo(expected);
    assertThat(task().usage().byModel()).containsOnlyKeys((String) null);
    assertThat(chat().usage()).as("the chat's own sums: none of its tasks' turns").isNull();
    assertThat(runTokens()).as("the run's, on its task").isEqualTo(360);
    assertThat(COMMANDS.from(t -> true))
        .doesNotContain("update " + Collections.CHATS, "findAndModify " + Collections.CHATS);
  }

  /**
   * A sub-agent made before tasks kept their usage apart: its turns add to its chat's sums as well,
   * in the write that takes the step's end's position in the chat's ledger (the shared bulk
   * writes), with no counter of positions taken.
   */
  @Test
  void theTurnsOfASubAgentMadeBeforeUsageWasKeptApartAddToItsChatsSumsToo() {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update().unset("settings.usageApart"),
        SubAgent.class);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.taskId())),
        new org.springframework.data.mongodb.core.query.Update().unset(Task.USAGE_APART),
        Task.class);
    COMMANDS.clear();
    model.then(
        () ->
            new ModelReply("Kafka is a log.", List.of(), new ModelReply.Usage(300, 40), "stop", 1));

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    Usage expected = new Usage(300, 40, 1, null);
    assertThat(sums(task().usage())).isEqualTo(expected);
    assertThat(sums(chat().usage())).isEqualTo(expected);
    assertThat(chat().usage().byModel()).containsOnlyKeys((String) null);
    assertThat(COMMANDS.from(t -> true))
        .contains("update " + Collections.CHATS)
        .doesNotContain("findAndModify " + Collections.CHATS);
  }

  @Test
  void aFollowUpStartsItsRunsTokenCountAfresh() {
    model.then(
        () ->
            new ModelReply("Kafka is a log.", List.of(), new ModelReply.Usage(300, 40), "stop", 1));
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    assertThat(runTokens()).isEqualTo(340);
    append(SubAgentMessage.USER, "And Redis?", null);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update()
            .set("status", SubAgentStatus.active),
        SubAgent.class);
    model.replies("Redis is a cache.");

    loop.wake(subAgent.id());

    await().until(() -> "Redis is a cache.".equals(lastMessage().content()));
    assertThat(runTokens()).as("the follow-up's turn alone").isEqualTo(20);
    assertThat(sums(task().usage()).turns()).as("the task's sums go on").isEqualTo(2);
  }

  @Test
  void anOutcomeAppliedTwiceOrATurnStoredAgainCountsItsTokensOnce() {
    model.callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"x\"}"));
    loop.wake(subAgent.id());
    await().until(() -> subAgent().turn() == null);
    SubAgentMessage answer = lastAnswer();
    OutcomeRecorder recorder = recorder();

    loop.wake(subAgent.id()); // a redelivered event: the answer's outcome is applied again
    recorder.apply(subAgent(), answer);
    Optional<OutcomeRecorder.StoredAnswer> again =
        recorder.storeAnswer(
            subAgent(),
            answer.seq() - 1,
            ScriptedModel.reply(
                null, List.of(new ModelToolCall("call_1", "search_docs", "{\"query\":\"x\"}"))),
            null,
            AgentLoopTest.INPUT,
            tool -> false,
            false,
            false);

    assertThat(again)
        .as("the turn's answer was stored before, and counts nothing")
        .contains(new OutcomeRecorder.StoredAnswer(answer, 0, Map.of()));
    assertThat(model.requests()).hasSize(1);
    assertThat(toolCalls()).extracting(ToolCall::modelCallId).containsExactly("call_1");
    Usage once = new Usage(10, 10, 1, null);
    assertThat(sums(Usage.summed(conversations.messages(subAgent.id())))).isEqualTo(once);
    assertThat(sums(task().usage())).isEqualTo(once);
  }

  @Test
  void aLateAnswerForASubAgentThatIsNoLongerActiveStoresAndCountsNothing() {
    model.replies("Done.");
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    long messages = conversations.messages(subAgent.id()).size();
    OutcomeRecorder recorder = recorder();

    Optional<OutcomeRecorder.StoredAnswer> late =
        recorder.storeAnswer(
            subAgent(),
            lastAnswer().seq(),
            ScriptedModel.reply(
                null, List.of(new ModelToolCall("call_9", "search_docs", "{\"query\":\"x\"}"))),
            null,
            AgentLoopTest.INPUT,
            tool -> false,
            false,
            false);

    assertThat(late).isEmpty();
    assertThat(conversations.messages(subAgent.id())).hasSize((int) messages);
    assertThat(toolCalls()).isEmpty();
    assertThat(subAgent().messageCount()).as("no place taken either").isEqualTo(messages);
    assertThat(sums(Usage.summed(conversations.messages(subAgent.id()))))
        .isEqualTo(new Usage(10, 10, 1, null));
  }

  @Test
  void aFinalAnswerThatBreaksTheOutputSchemaIsRepairedAndTheRepairCountsAsATurn() {
    startSubAgent("extractor", null);
    model.replies("Kafka is a log.", "{\"subject\":\"Kafka\",\"facts\":[\"a log\"]}");

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.success);
    assertThat(task().result()).isEqualTo("{\"subject\":\"Kafka\",\"facts\":[\"a log\"]}");
    assertThat(model.requests()).hasSize(2);
    assertThat(model.requests().getFirst().responseSchema()).contains("\"facts\"");
    ModelMessage repair = model.requests().get(1).messages().getLast();
    assertThat(repair.role()).isEqualTo("user");
    assertThat(repair.content())
        .startsWith(ConversationState.REPAIR_PROMPT)
        .contains("the answer is not JSON")
        .contains("Kafka is a log.")
        .contains("\"required\"");
    assertThat(sums(task().usage()).turns()).isEqualTo(2);
    assertThat(ledger.after(subAgent.chatId(), 0, 100))
        .filteredOn(e -> e.type().equals(RunEvent.STEP_END))
        .extracting(e -> e.data().get("validationOk"))
        .containsExactly(false, true);
  }

  @Test
  void aFinalAnswerStillBreakingTheSchemaAfterTwoRepairsFailsWithValidationError() {
    startSubAgent("extractor", null);
    model.replies("not json", "{\"subject\":\"Kafka\"}", "{\"facts\":\"one\"}");

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.failed);
    assertThat(model.requests()).hasSize(3);
    assertThat(task().error()).contains("after 2 repairs").contains("field 'subject'");
    assertThat(lastMessage().content()).contains("validation_error");
    assertThat(subAgent().status()).isEqualTo(SubAgentStatus.failed);
  }

  @Test
  void aSubAgentCancelledWhileTheModelThinksStoresNoAnswerAndSchedulesNothing() throws Exception {
    CountDownLatch modelCalled = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    model.then(
        heldToolCall(
            modelCalled, release, new ModelToolCall("call_1", "search_docs", "{\"query\":\"x\"}")));
    loop.wake(subAgent.id());
    assertThat(modelCalled.await(10, TimeUnit.SECONDS)).isTrue();

    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update()
            .set("status", SubAgentStatus.cancelled),
        SubAgent.class);
    release.countDown();

    await().until(() -> subAgent().turn() == null);
    assertThat(lastMessage().role()).isEqualTo("user");
    assertThat(toolCalls()).isEmpty();
    loop.wake(subAgent.id());
    assertThat(model.requests()).hasSize(1);
  }

  @Test
  void aRunFailedByItsDeadlineWhileTheModelThinksStoresNoAnswerAndSchedulesNothing()
      throws Exception {
    CountDownLatch modelCalled = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    model.then(
        heldToolCall(
            modelCalled, release, new ModelToolCall("call_1", "search_docs", "{\"query\":\"x\"}")));
    loop.wake(subAgent.id());
    assertThat(modelCalled.await(10, TimeUnit.SECONDS)).isTrue();

    loopWith(new RunLimits(25, 1000, 0.9, Duration.ofMillis(1), 3, 5))
        .enforceDeadline(subAgent.id());
    release.countDown();

    await().until(() -> subAgent().turn() == null);
    assertThat(subAgent().status()).isEqualTo(SubAgentStatus.failed);
    assertThat(lastMessage().role()).isEqualTo("system");
    assertThat(conversations.messages(subAgent.id()))
        .extracting(SubAgentMessage::role)
        .doesNotContain("assistant");
    assertThat(toolCalls()).isEmpty();
  }

  private static OutcomeRecorder recorder() {
    BulkWrites writes = new BulkWrites(mongo);
    return new OutcomeRecorder(
        mongo,
        writes,
        conversations,
        outbox,
        new EventCodec(),
        new UsageCounter(mongo),
        ledger,
        new Delegations(
            mongo, writes, conversations, AGENTS, outbox, new EventCodec(), ledger, LIMITS),
        PROPERTIES);
  }

  private AgentLoop loopWith(RunLimits limits) {
    return loopWith(limits, model, Executors.newVirtualThreadPerTaskExecutor());
  }

  /**
   * A copy of the loop (an instance of the service: its own holds) with its own model, running its
   * turns on these threads. Nothing renews its holds: a minute is longer than any test.
   */
  private AgentLoop loopWith(RunLimits limits, ScriptedModel model, ExecutorService turns) {
    return loopWith(limits, model, turns, PROPERTIES.eventWait(), meters);
  }

  /**
   * A copy of the loop whose turn's end waits up to {@code eventWait} for an event, with metrics of
   * its own.
   */
  private AgentLoop loopWith(Duration eventWait, MeterRegistry meters) {
    return loopWith(LIMITS, model, Executors.newVirtualThreadPerTaskExecutor(), eventWait, meters);
  }

  private AgentLoop loopWith(
      RunLimits limits,
      ScriptedModel model,
      ExecutorService turns,
      Duration eventWait,
      MeterRegistry meters) {
    return loopWith(limits, model, turns, eventWait, PROPERTIES.resultWait(), meters, starts);
  }

  /**
   * A copy of the loop whose turn of one tool call waits up to {@code resultWait} for its result
   * before it ends, with metrics of its own.
   */
  private AgentLoop loopWaitingForResults(Duration resultWait, MeterRegistry meters) {
    return loopWith(
        LIMITS,
        model,
        Executors.newVirtualThreadPerTaskExecutor(),
        PROPERTIES.eventWait(),
        resultWait,
        meters,
        starts);
  }

  /** A copy of the loop whose turns' starts are recorded by {@code starts}. */
  private AgentLoop loopWith(StepStarts starts) {
    return loopWith(
        LIMITS,
        model,
        Executors.newVirtualThreadPerTaskExecutor(),
        PROPERTIES.eventWait(),
        PROPERTIES.resultWait(),
        meters,
        starts);
  }

  private AgentLoop loopWith(
      RunLimits limits,
      ScriptedModel model,
      ExecutorService turns,
      Duration eventWait,
      Duration resultWait,
      MeterRegistry meters,
      StepStarts starts) {
    return new AgentLoop(
        mongo,
        conversations,
        AGENTS,
        new ModelCaller(model, PROPERTIES, new SimpleMeterRegistry()),
        recorder(),
        new OutputSchemaCheck(),
        limits,
        AgentLoopConfiguration.turnLeases(mongo, new BulkWrites(mongo), Duration.ofMinutes(1)),
        turns,
        eventWait,
        resultWait,
        ledger,
        starts,
        ObservationRegistry.NOOP,
        meters,
        AgentLoopTest.CONFIG);
  }

  /**
   * One wait of the kind {@code metric} counted ({@code agentrt.agent-loop.event-waits} or {@code
   * result-waits}), and it ended with {@code outcome}.
   */
  private static void assertOneWait(MeterRegistry meters, String metric, String outcome) {
    for (String each : List.of("came", "timed_out", "not_waited")) {
      assertThat(meters.get(metric).tag("outcome", each).counter().count())
          .as("%s, %s", metric, each)
          .isEqualTo(each.equals(outcome) ? 1 : 0);
    }
  }

  /** Time passes: the lease of the sub-agent's turn runs out while a worker still holds it. */
  private void moveSubAgentTo(SubAgentStatus status) {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update().set("status", status),
        SubAgent.class);
  }

  private void expireTheTurnsLease() {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update()
            .set("turn.leaseUntil", Instant.now().minusSeconds(1)),
        SubAgent.class);
  }

  /**
   * What a worker leaves when it dies right after its answer's write: the turn held (under a lease
   * that has not run out yet), the answer stored, none of its tool calls recorded, and the answer's
   * events published by the relay since, to a tool-runner that found no call to claim.
   */
  private void answerOfAWorkerThatDied(RequestedToolCall... calls) {
    answerOfAWorkerThatDied((String) null, calls);
  }

  /** {@link #answerOfAWorkerThatDied(RequestedToolCall...)}, the answer with this text. */
  private void answerOfAWorkerThatDied(String content, RequestedToolCall... calls) {
    long answered = lastMessage().seq();
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new org.springframework.data.mongodb.core.query.Update()
            .set(
                "turn",
                new SubAgent.Turn(answered, "a-dead-instance", Instant.now().plusSeconds(60))),
        SubAgent.class);
    conversations.insertAt(
        SubAgentIds.of(subAgent),
        conversations.takeSeqWhileActive(subAgent.id(), Instant.now()).orElseThrow(),
        new NewMessage(
            OutcomeRecorder.answerId(subAgent.id(), answered),
            SubAgentMessage.ASSISTANT,
            content,
            List.of(calls),
            null,
            null,
            new TurnUsage(10, 10),
            null,
            List.of()),
        Instant.now());
  }

  /**
   * What the tool-runner does with each pending call, on its event or on a sweep: claims it ({@code
   * pending → running}, which succeeds once) and answers it with a tool message.
   *
   * @return the model's ids of the calls it ran
   */
  private List<String> runPendingCalls() {
    List<String> ran = new ArrayList<>();
    for (ToolCall call : toolCalls()) {
      ToolCall claimed =
          mongo.findAndModify(
              Query.query(
                  Criteria.where("_id").is(call.id()).and("status").is(ToolCallStatus.pending)),
              new org.springframework.data.mongodb.core.query.Update()
                  .set("status", ToolCallStatus.running),
              ToolCall.class);
      if (claimed != null) {
        append(SubAgentMessage.TOOL, "{\"results\":[]}", call.modelCallId());
        ran.add(call.modelCallId());
      }
    }
    return ran;
  }

  /**
   * One turn with a tool call, its result, then the next wake-up ends the run at a step limit of 1.
   */
  private void assertTheSecondTurnIsStoppedByAStepLimitOfOne() {
    model.callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"x\"}"));
    loop.wake(subAgent.id());
    await().until(() -> lastMessage().role().equals("assistant"));
    append(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");

    loop.wake(subAgent.id());

    await().until(() -> task().status() == TaskStatus.failed);
    assertThat(task().error()).contains("step limit: 1 model turns");
    assertThat(model.requests()).hasSize(1);
  }

  /** A run of two turns: a search, then the answer; the first turn's answer. */
  private SubAgentMessage searchedThenAnswered() {
    model
        .callsTools(new ModelToolCall("call_1", "search_docs", "{\"query\":\"Kafka\"}"))
        .replies("Kafka is a log.");
    loop.wake(subAgent.id());
    SubAgentMessage first = await().until(this::lastMessage, m -> m.role().equals("assistant"));
    append(SubAgentMessage.TOOL, "{\"results\":[]}", "call_1");
    loop.wake(subAgent.id());
    await().until(() -> task().status() == TaskStatus.success);
    return first;
  }

  private static ModelReply withTokens(int prompt, int completion, String callId) {
    return new ModelReply(
        null,
        List.of(new ModelToolCall(callId, "search_docs", "{\"query\":\"" + callId + "\"}")),
        new ModelReply.Usage(prompt, completion),
        "tool_calls",
        0);
  }

  /**
   * The reason of the run's end, once the task has failed (its last write: the ledger's {@code
   * run_end} is recorded before it).
   */
  private String failureReason() {
    await().until(() -> task().status() == TaskStatus.failed);
    return ledger.after(subAgent.chatId(), 0, 100).stream()
        .filter(e -> e.type().equals(RunEvent.RUN_END))
        .map(e -> (String) e.data().get("reason"))
        .findFirst()
        .orElseThrow();
  }

  private List<String> ledgerTypes() {
    return ledger.after(subAgent.chatId(), 0, 100).stream().map(RunEvent::type).toList();
  }

  /** A model step that says it was called, then holds until released, then asks for the call. */
  private static Supplier<ModelReply> heldToolCall(
      CountDownLatch called, CountDownLatch release, ModelToolCall call) {
    return held(called, release, ScriptedModel.reply(null, List.of(call)));
  }

  /**
   * Wakes the sub-agent with a model that, once released, calls {@code call_1}, then answers
   * "Done."; returns once the model was called, with the latch that releases it.
   */
  private CountDownLatch aTurnHeldAtTheModel() throws InterruptedException {
    CountDownLatch modelCalled = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    model
        .then(
            heldToolCall(
                modelCalled,
                release,
                new ModelToolCall("call_1", "search_docs", "{\"query\":\"x\"}")))
        .replies("Done.");
    loop.wake(subAgent.id());
    assertThat(modelCalled.await(10, TimeUnit.SECONDS)).isTrue();
    return release;
  }

  /** A model step that says it was called, then holds until released, then replies. */
  private static Supplier<ModelReply> held(
      CountDownLatch called, CountDownLatch release, ModelReply reply) {
    return () -> {
      called.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return reply;
    };
  }

  private static Usage sums(Usage usage) {
    return new Usage(usage.promptTokens(), usage.completionTokens(), usage.turns(), null);
  }

  private Chat chat() {
    return mongo.findById(subAgent.chatId(), Chat.class);
  }

  /**
   * {@link #append} on a thread of its own, as another service would: its commands are not ours.
   */
  private void appendElsewhere(String role, String content, String toolCallId) {
    elsewhere(() -> append(role, content, toolCallId));
  }

  /** Runs a write on a thread of its own: from a gate's action, not the writer's thread. */
  private static void elsewhere(Runnable write) {
    try {
      Thread.ofPlatform().start(write).join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void append(String role, String content, String toolCallId) {
    conversations.append(
        subAgent,
        new NewMessage(
            UUID.randomUUID().toString(), role, content, List.of(), toolCallId, List.of()),
        Instant.now());
  }

  /**
   * Appends a message as the tool-runner does, and returns its event, which carries it: the wake a
   * test delivers by hand.
   */
  private SubAgentMessageAdded appendCarried(String role, String content, String toolCallId) {
    String id = UUID.randomUUID().toString();
    Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    conversations.append(
        subAgent, new NewMessage(id, role, content, List.of(), toolCallId, List.of()), now);
    return SubAgentConversations.addedCarrying(
        SubAgentIds.of(subAgent), id, role, content, toolCallId, now);
  }

  /** The event of the sub-agent's instruction, as agent-init makes it: it carries the start. */
  private SubAgentMessageAdded starting() {
    List<SubAgentMessage> messages = conversations.messages(subAgent.id());
    SubAgentMessageAdded added =
        SubAgentConversations.addedStarting(
            mongo.findById(subAgent.id(), SubAgent.class),
            messages.get(0).id(),
            messages.get(0).content(),
            messages.get(1).id(),
            messages.get(1).content(),
            messages.get(1).createdAt());
    assertThat(added.start()).as("short messages travel with the event").isNotNull();
    return added;
  }

  private SubAgentMessage lastAnswer() {
    return conversations.messages(subAgent.id()).stream()
        .filter(m -> m.role().equals(SubAgentMessage.ASSISTANT))
        .reduce((a, b) -> b)
        .orElseThrow();
  }

  private SubAgentMessage lastMessage() {
    return conversations.messages(subAgent.id()).getLast();
  }

  private List<ToolCall> toolCalls() {
    return mongo.find(Query.query(Criteria.where("subAgentId").is(subAgent.id())), ToolCall.class);
  }

  private Task task() {
    return mongo.findById(subAgent.taskId(), Task.class);
  }

  private long runTokens() {
    return mongo
        .findById(subAgent.taskId(), org.bson.Document.class, Collections.TASKS)
        .get(Task.RUN_TOKENS, Number.class)
        .longValue();
  }

  private org.bson.Document storedSubAgent() {
    return mongo.findById(subAgent.id(), org.bson.Document.class, Collections.SUB_AGENTS);
  }

  private SubAgent subAgent() {
    return mongo.findById(subAgent.id(), SubAgent.class);
  }
}
