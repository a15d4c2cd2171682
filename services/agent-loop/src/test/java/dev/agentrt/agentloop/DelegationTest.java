package dev.agentrt.agentloop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.events.Topics;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.model.ToolSpec;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.Collections;
import dev.agentrt.store.DelegationReplies;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StepStarts;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.ScriptedModel;
import io.micrometer.observation.ObservationRegistry;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * {@code message_agent}, the runtime's own tool: a call starts one child task (however often the
 * answer is carried out), is never given to tool-runner, and a call that cannot be carried out gets
 * its tool error at once; a {@code conversation_id} wakes the same child with the new message.
 */
class DelegationTest {

  private static final AgentCatalog AGENTS =
      AgentCatalog.read(
          new ByteArrayInputStream(
              """
              agents:
                - name: analyst
                  description: Analyses.
                  systemPrompt: You analyse.
                  delegates: [researcher]
                - name: researcher
                  description: Researches.
                  systemPrompt: You research.
                  tools: [search_docs]
              """
                  .getBytes(StandardCharsets.UTF_8)),
          "test agents");

  private static final RunLimits LIMITS =
      new RunLimits(25, 100_000, 0.9, Duration.ofMinutes(10), 3, 2);

  private static EmbeddedKafkaKraftBroker kafka;
  private static InMemoryMongo mongoServer;
  private static MongoTemplate mongo;
  private static Outbox outbox;
  private static SubAgentConversations conversations;
  private static RunLedger ledger;
  private static StepStarts starts;

  private final ScriptedModel model = new ScriptedModel();
  private AgentLoop loop;
  private OutcomeRecorder recorder;
  private SubAgent analyst;

  @BeforeAll
  static void startInfrastructure() {
    kafka =
        new EmbeddedKafkaKraftBroker(
            1, 1, Topics.TASKS, Topics.TOOL_CALLS, Topics.SUB_AGENT_MESSAGES);
    kafka.afterPropertiesSet();
    mongoServer = InMemoryMongo.start();
    mongo = mongoServer.template();
    outbox =
        new Outbox(
            new EventPublisher(
                new KafkaTemplate<>(
                    new DefaultKafkaProducerFactory<>(
                        Map.of("bootstrap.servers", kafka.getBrokersAsString()),
                        new StringSerializer(),
                        new ByteArraySerializer())),
                "delegation-test"),
            mongo);
    conversations = new SubAgentConversations(mongo);
    ledger = new RunLedger(mongo);
    starts = new StepStarts(ledger, AgentLoopTest.PROPERTIES.startShownAfter(), "turn-start-timer");
  }

  @AfterAll
  static void stopInfrastructure() {
    mongoServer.close();
    kafka.destroy();
  }

  @BeforeEach
  void anAnalystAtWork() {
    BulkWrites writes = new BulkWrites(mongo);
    recorder =
        new OutcomeRecorder(
            mongo,
            writes,
            conversations,
            outbox,
            new EventCodec(),
            new UsageCounter(mongo),
            ledger,
            new Delegations(
                mongo, writes, conversations, AGENTS, outbox, new EventCodec(), ledger, LIMITS),
            AgentLoopTest.PROPERTIES);
    loop =
        new AgentLoop(
            mongo,
            conversations,
            AGENTS,
            new ModelCaller(
                model,
                AgentLoopTest.PROPERTIES,
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry()),
            recorder,
            new OutputSchemaCheck(),
            LIMITS,
            AgentLoopConfiguration.turnLeases(mongo, writes, Duration.ofMinutes(1)),
            Executors.newVirtualThreadPerTaskExecutor(),
            AgentLoopTest.PROPERTIES.eventWait(),
            AgentLoopTest.PROPERTIES.resultWait(),
            ledger,
            starts,
            ObservationRegistry.NOOP,
            new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
            AgentLoopTest.CONFIG);
    analyst = startSubAgent("analyst", null);
  }

  @Test
  void aCallStartsOneChildTaskNamingItsParentWhateverHowOftenItIsCarriedOut() {
    model.callsTools(
        call("call_1", "{\"agent\":\"researcher\",\"message\":\"Research Kafka\"}"),
        call("call_2", "{\"agent\":\"researcher\",\"message\":\"Research MongoDB\"}"));

    loop.wake(analyst.id());
    await().until(() -> childrenOf(analyst.taskId()).size() == 2);
    SubAgentMessage answer = lastMessage(analyst);
    recorder.apply(analyst, answer); // a redelivered event: the answer carried out again
    loop.wake(analyst.id());

    List<Task> children = childrenOf(analyst.taskId());
    assertThat(children).hasSize(2);
    assertThat(children)
        .extracting(Task::agent, Task::instruction, Task::depth, Task::status)
        .containsExactlyInAnyOrder(
            org.assertj.core.api.Assertions.tuple(
                "researcher", "Research Kafka", 1, TaskStatus.created),
            org.assertj.core.api.Assertions.tuple(
                "researcher", "Research MongoDB", 1, TaskStatus.created));
    Task kafkaChild =
        children.stream()
            .filter(t -> t.instruction().equals("Research Kafka"))
            .findFirst()
            .orElseThrow();
    String toolCallId = OutcomeRecorder.toolCallId(answer.id(), answer.toolCalls().getFirst());
    assertThat(kafkaChild.id()).isEqualTo(Delegations.childTaskId(toolCallId));
    Instant analystsDeadline = mongo.findById(analyst.id(), SubAgent.class).deadline();
    assertThat(analystsDeadline).as("set when the analyst took its turn").isNotNull();
    assertThat(kafkaChild.delegation())
        .as("the child's runs end by the analyst's deadline: it holds for the tree")
        .isEqualTo(
            new Task.Delegation(
                analyst.taskId(),
                analyst.id(),
                analyst.taskId(),
                1,
                toolCallId,
                "call_1",
                analystsDeadline));
    TaskCreated created = publishedTaskCreated(kafkaChild.id());
    assertThat(created.parentTaskId()).isEqualTo(analyst.taskId());
    assertThat(created.depth()).isEqualTo(1);
    assertThat(created.parentToolCallId()).isEqualTo(toolCallId);
    assertThat(created.chatLimits())
        .as("the analyst, stored without settings, knows no limits: the child's start reads them")
        .isNull();
    assertThat(mongo.findAll(ToolCall.class)).as("nothing for tool-runner").isEmpty();
    assertThat(analystsTurns()).as("the analyst waits, holding nothing").hasSize(1);
    assertThat(mongo.findById(analyst.id(), SubAgent.class).turn()).isNull();
  }

  @Test
  void onlyAnAgentWithDelegatesIsOfferedMessageAgent() {
    model.replies("Done.");
    loop.wake(analyst.id());
    await().until(() -> model.requests().size() == 1);
    assertThat(model.requests().getFirst().tools())
        .extracting(ToolSpec::name)
        .containsExactly("ask_user", "message_agent");
  }

  @Test
  void aCallForAnAgentNotAmongTheDelegatesOrTooDeepGetsItsToolErrorAndStartsNothing() {
    model
        .callsTools(call("call_1", "{\"agent\":\"analyst\",\"message\":\"Analyse\"}"))
        .replies("I may not ask myself.");
    loop.wake(analyst.id());
    // The tool error wakes the analyst for one more turn: let it have its reply before the next
    // sub-agent's is scripted, so that neither takes the other's.
    await().until(() -> "I may not ask myself.".equals(lastMessage(analyst).content()));
    assertThat(toolMessages(analyst))
        .singleElement()
        .satisfies(m -> assertThat(m.content()).contains("\"error_type\":\"not_allowed\""));

    SubAgent deep =
        startSubAgent("analyst", new Task.Delegation("p", "ps", "root", 2, "tc", "c", null));
    model
        .callsTools(call("call_1", "{\"agent\":\"researcher\",\"message\":\"Research Kafka\"}"))
        .replies("I research it myself.");
    loop.wake(deep.id());
    await().until(() -> "I research it myself.".equals(lastMessage(deep).content()));

    assertThat(toolMessages(deep))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.content()).contains("\"error_type\":\"depth_exceeded\"");
              assertThat(m.toolCallId()).isEqualTo("call_1");
            });
    assertThat(childrenOf(deep.taskId())).isEmpty();
    assertThat(childrenOf(analyst.taskId())).isEmpty();
  }

  @Test
  void aConversationIdWakesTheSameChildWithTheNewMessage() {
    model.callsTools(call("call_1", "{\"agent\":\"researcher\",\"message\":\"Research Kafka\"}"));
    loop.wake(analyst.id());
    await().until(() -> childrenOf(analyst.taskId()).size() == 1);
    Task child = childrenOf(analyst.taskId()).getFirst();
    SubAgent researcher = childFinished(child, "Kafka is a log.");
    String first = child.delegation().toolCallId();
    new DelegationReplies(conversations, outbox, new EventCodec())
        .answer(
            dev.agentrt.store.SubAgentIds.of(analyst),
            first,
            "call_1",
            DelegationReplies.result("researcher", child.id(), "Kafka is a log."),
            Instant.now());

    model.callsTools(
        call(
            "call_2",
            "{\"agent\":\"researcher\",\"message\":\"What else?\",\"conversation_id\":\""
                + child.id()
                + "\"}"));
    loop.wake(analyst.id());
    // The last of the wake's writes: the child's sub-agent active again.
    await()
        .until(
            () ->
                mongo.findById(researcher.id(), SubAgent.class).status() == SubAgentStatus.active);

    Task woken = mongo.findById(child.id(), Task.class);
    Instant analystsDeadline = mongo.findById(analyst.id(), SubAgent.class).deadline();
    assertThat(woken.delegation().deadline()).isEqualTo(analystsDeadline);
    assertThat(mongo.findById(researcher.id(), SubAgent.class).settings().callerDeadline())
        .as("the child's new run ends by the deadline of the call it answers")
        .isEqualTo(analystsDeadline);
    assertThat(woken.delegation().modelCallId()).isEqualTo("call_2");
    assertThat(woken.delegation().toolCallId()).isNotEqualTo(first);
    assertThat(childrenOf(analyst.taskId())).as("no second child").hasSize(1);
    assertThat(mongo.findById(researcher.id(), SubAgent.class).status())
        .isEqualTo(SubAgentStatus.active);
    assertThat(lastMessage(researcher).content()).isEqualTo("What else?");
  }

  @Test
  void aChildsTurnCountsAgainstItsRootsRunAndFailsWhenTheTreesBudgetIsUsedUp() {
    model.then(
        () ->
            new ModelReply(
                null,
                List.of(call("call_1", "{\"agent\":\"researcher\",\"message\":\"Research\"}")),
                new ModelReply.Usage(500, 100),
                "tool_calls",
                1));
    loop.wake(analyst.id());
    await().until(() -> childrenOf(analyst.taskId()).size() == 1);
    SubAgent researcher =
        childStarted(
            childrenOf(analyst.taskId()).getFirst(),
            new ChatLimits(null, 1_000L, null), // the tree's budget: the root's and the chat's
            null);
    model.then(
        () ->
            new ModelReply(
                null,
                List.of(new ModelToolCall("call_1", "search_docs", "{\"query\":\"x\"}")),
                new ModelReply.Usage(400, 50),
                "tool_calls",
                1));

    loop.wake(researcher.id());

    await().until(() -> taskOf(researcher).status() == TaskStatus.failed);
    assertThat(taskOf(researcher).error())
        .as("its own run used 450 tokens; the tree 1050")
        .startsWith("Stopped by the token budget: 1050 of 1000 tokens used.");
    assertThat(mongo.findAll(ToolCall.class))
        .as("its calls dropped, never run")
        .singleElement()
        .satisfies(c -> assertThat(c.status()).isEqualTo(ToolCallStatus.failed));
    assertThat(runTokens(analyst.taskId())).isEqualTo(1050);
  }

  @Test
  void everyRunOfAChildEndsByItsCallersDeadlineHoweverLateItsOwnClockStarted() {
    model.callsTools(call("call_1", "{\"agent\":\"researcher\",\"message\":\"Research\"}"));
    loop.wake(analyst.id());
    await().until(() -> childrenOf(analyst.taskId()).size() == 1);
    SubAgent researcher =
        childStarted(
            childrenOf(analyst.taskId()).getFirst(),
            null,
            Instant.now().minusSeconds(1)); // its own run began just now, its caller's is over
    model.replies("Too late.");

    loop.wake(researcher.id());

    await().until(() -> taskOf(researcher).status() == TaskStatus.failed);
    assertThat(taskOf(researcher).error())
        .startsWith("Stopped by the deadline of the task that asked for this work");
    assertThat(model.requests()).as("the analyst's turn only").hasSize(1);
  }

  // --- fixtures -----------------------------------------------------------------------------

  /** The child's sub-agent, as agent-init starts it: active, with its instruction to answer. */
  private SubAgent childStarted(Task child, ChatLimits limits, Instant callerDeadline) {
    Instant now = Instant.now();
    SubAgent researcher =
        mongo.insert(
            new SubAgent(
                Ids.derived(child.id(), "sub-agent"),
                child.id(),
                child.chatId(),
                "researcher",
                SubAgentStatus.active,
                0,
                null,
                now,
                now,
                null,
                new SubAgent.Settings(
                    null, limits, child.delegation().rootTaskId(), callerDeadline)));
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(child.id())),
        new org.springframework.data.mongodb.core.query.Update()
            .set("status", TaskStatus.running)
            .set("subAgentId", researcher.id()),
        Task.class);
    append(researcher, SubAgentMessage.SYSTEM, "You research.");
    append(researcher, SubAgentMessage.USER, child.instruction());
    return researcher;
  }

  private static Task taskOf(SubAgent subAgent) {
    return mongo.findById(subAgent.taskId(), Task.class);
  }

  private static long runTokens(String taskId) {
    return mongo
        .findById(taskId, Document.class, Collections.TASKS)
        .get(Task.RUN_TOKENS, Number.class)
        .longValue();
  }

  /** The {@code TaskCreated} published for the task, read from the broker. */
  private static TaskCreated publishedTaskCreated(String taskId) {
    List<Event> published = Published.on(kafka, Topics.TASKS, taskId, 1);
    assertThat(published).hasSize(1);
    return (TaskCreated) published.getFirst();
  }

  private static ModelToolCall call(String id, String arguments) {
    return new ModelToolCall(id, "message_agent", arguments);
  }

  /** The child's sub-agent, as agent-init starts it, having answered: task {@code success}. */
  private SubAgent childFinished(Task child, String result) {
    Instant now = Instant.now();
    SubAgent researcher =
        mongo.insert(
            new SubAgent(
                Ids.derived(child.id(), "sub-agent"),
                child.id(),
                child.chatId(),
                "researcher",
                SubAgentStatus.completed,
                0,
                null,
                now,
                now));
    append(researcher, SubAgentMessage.USER, child.instruction());
    append(researcher, SubAgentMessage.ASSISTANT, result);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(child.id())),
        new org.springframework.data.mongodb.core.query.Update()
            .set("status", TaskStatus.success)
            .set("subAgentId", researcher.id())
            .set("result", result),
        Task.class);
    return researcher;
  }

  private SubAgent startSubAgent(String agent, Task.Delegation delegation) {
    Instant now = Instant.now();
    String taskId = UUID.randomUUID().toString();
    String chatId = mongo.insert(new Chat(UUID.randomUUID().toString(), "test", now)).id();
    SubAgent subAgent =
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
                now));
    mongo.insert(
        new Task(
            taskId,
            chatId,
            Task.TYPE_AGENT,
            agent,
            "Compare Kafka and MongoDB",
            null,
            TaskStatus.running,
            subAgent.id(),
            null,
            null,
            null,
            now,
            now,
            List.of(),
            delegation,
            now,
            null));
    append(subAgent, SubAgentMessage.SYSTEM, "You analyse.");
    append(subAgent, SubAgentMessage.USER, "Compare Kafka and MongoDB");
    return subAgent;
  }

  private static void append(SubAgent subAgent, String role, String content) {
    conversations.append(
        subAgent,
        new NewMessage(UUID.randomUUID().toString(), role, content, List.of(), null, List.of()),
        Instant.now());
  }

  private static List<Task> childrenOf(String taskId) {
    return mongo.find(
        Query.query(Criteria.where("delegation.parentTaskId").is(taskId)), Task.class);
  }

  private static SubAgentMessage lastMessage(SubAgent subAgent) {
    return conversations.messages(subAgent.id()).getLast();
  }

  private static List<SubAgentMessage> toolMessages(SubAgent subAgent) {
    return conversations.messages(subAgent.id()).stream()
        .filter(m -> m.role().equals(SubAgentMessage.TOOL))
        .toList();
  }

  private List<SubAgentMessage> analystsTurns() {
    return conversations.messages(analyst.id()).stream()
        .filter(m -> m.role().equals(SubAgentMessage.ASSISTANT))
        .toList();
  }
}
