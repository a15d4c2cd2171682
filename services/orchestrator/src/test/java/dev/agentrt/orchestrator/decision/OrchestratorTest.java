package dev.agentrt.orchestrator.decision;

import static dev.agentrt.orchestrator.testing.Stored.CHAT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.orchestrator.testing.Approvals;
import dev.agentrt.orchestrator.testing.Stored;
import dev.agentrt.orchestrator.testing.Stored.Started;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.Plan;
import dev.agentrt.store.PlanNode;
import dev.agentrt.store.PlanNodeStatus;
import dev.agentrt.store.PlanStatus;
import dev.agentrt.store.Plans;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.store.Usage;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.MongoCommands;
import dev.agentrt.testing.ScriptedModel;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * The orchestrator's decisions without a broker: given a person's message and the stored state,
 * expect these documents, with these events in their outboxes, and these model calls.
 */
class OrchestratorTest {

  private static final EventCodec CODEC = new EventCodec();
  private static final String SURE = "\"confidence\":0.9,\"reason\":\"The person asked for it.\"";
  private static final String RESEARCH_KAFKA =
      "{\"action\":\"new_task\",\"agent\":\"researcher\",\"instruction\":\"Research Kafka\","
          + SURE
          + "}";
  private static final OrchestratorProperties PROPERTIES =
      new OrchestratorProperties(
          20, 3, Duration.ZERO, Duration.ofSeconds(5), Duration.ofSeconds(30));

  private static final MongoCommands COMMANDS = new MongoCommands();

  private static InMemoryMongo mongoServer;
  private static MongoTemplate mongo;

  private ScriptedModel model;
  private Orchestrator orchestrator;
  private Stored stored;

  @BeforeAll
  static void startMongo() {
    mongoServer = InMemoryMongo.start(COMMANDS);
    mongo = mongoServer.template();
  }

  @AfterAll
  static void stopMongo() {
    mongoServer.close();
  }

  @BeforeEach
  void freshState() {
    mongoServer.clear();
    model = new ScriptedModel();
    orchestrator = orchestrator(AgentCatalog.fromClasspath("agents.yml"));
    stored = new Stored(mongo);
  }

  private Orchestrator orchestrator(AgentCatalog agents) {
    return new Orchestrator(
        mongo,
        new BulkWrites(mongo),
        new SubAgentConversations(mongo),
        agents,
        new Decider(model, PROPERTIES),
        CODEC,
        PROPERTIES,
        new RunLedger(mongo),
        new WaitingQuestions(mongo, new SubAgentConversations(mongo)),
        Approvals.withoutBroker(mongo),
        new ChatPlans(Stored.plans(mongo), agents, new PlanProperties(12)),
        new RoutingProperties(0.7));
  }

  /**
   * A chat's first message reads the chat's tasks once, for both the question that may wait and the
   * decision's context, and no plans: a chat without tasks has no plan nodes to leave out.
   */
  @Test
  void aChatsFirstMessageReadsItsTasksOnceAndNoPlans() {
    ChatMessage first = stored.userMessage(CHAT, "Research Kafka");
    model.replies(RESEARCH_KAFKA);
    COMMANDS.clear();

    orchestrator.handle(first, false);

    assertThat(COMMANDS.from(thread -> true))
        .filteredOn(c -> c.startsWith("find ") || c.startsWith("aggregate "))
        .filteredOn(c -> c.endsWith(" " + Collections.TASKS) || c.endsWith(" " + Collections.PLANS))
        .containsExactly("find " + Collections.TASKS);
  }

  @Test
  void answersDirectlyWithoutStartingATask() {
    ChatMessage hello = stored.userMessage(CHAT, "Hello");
    model.replies("{\"action\":\"answer\",\"answer\":\"Hello! What shall I research?\"}");

    Publication written = orchestrator.handle(hello, false);

    ChatMessage answer = onlyAssistantMessage();
    assertThat(answer.id()).isEqualTo(Ids.derived(hello.id(), "answer"));
    assertThat(answer.content()).isEqualTo("Hello! What shall I research?");
    assertThat(answer.taskId()).isNull();
    assertThat(written.collection()).isEqualTo(Collections.CHAT_MESSAGES);
    assertThat(written.documentId()).isEqualTo(answer.id());
    assertThat(events(answer.outbox()))
        .singleElement()
        .isInstanceOfSatisfying(
            ChatMessageAdded.class,
            e -> {
              assertThat(e.messageId()).isEqualTo(answer.id());
              assertThat(e.chatId()).isEqualTo(CHAT);
              assertThat(e.role()).isEqualTo("assistant");
            });
    assertThat(written.outbox()).isEqualTo(answer.outbox());
    assertThat(mongo.findAll(Task.class)).isEmpty();
    assertThat(model.requests()).hasSize(1);
  }

  @Test
  void startsATaskForTheAgentTheModelChose() {
    ChatMessage research = stored.userMessage(CHAT, "Research Kafka");
    model.replies(RESEARCH_KAFKA);

    Publication written = orchestrator.handle(research, false);

    Task task = mongo.findAll(Task.class).getFirst();
    assertThat(mongo.findAll(Task.class)).hasSize(1);
    assertThat(task.id()).isEqualTo(Ids.derived(research.id(), "task"));
    assertThat(task.type()).isEqualTo("agent");
    assertThat(task.agent()).isEqualTo("researcher");
    assertThat(task.instruction()).isEqualTo("Research Kafka");
    assertThat(task.chatId()).isEqualTo(CHAT);
    assertThat(task.status()).isEqualTo(TaskStatus.created);
    assertThat(task.routing()).isEqualTo(new Task.Routing(0.9, "The person asked for it.", false));
    assertThat(events(task.outbox()))
        .singleElement()
        .isInstanceOfSatisfying(
            TaskCreated.class,
            e -> {
              assertThat(e.taskId()).isEqualTo(task.id());
              assertThat(e.agent()).isEqualTo("researcher");
              assertThat(e.instruction()).isEqualTo("Research Kafka");
            });
    assertThat(written)
        .as("with where the handoff stands in the chat's ledger, for agent-init's run_start")
        .isEqualTo(
            new Publication(
                Collections.TASKS,
                task.id(),
                task.outbox(),
                Map.of(RunLedger.POSITION_HEADER, "1")));
    assertThat(assistantMessages()).isEmpty();
  }

  @Test
  void sendsAFollowUpToACompletedSubAgentAndWakesItAndItsTask() {
    Started earlier =
        stored.startedTask(
            CHAT,
            "Research Kafka",
            TaskStatus.success,
            SubAgentStatus.completed,
            "Kafka is a log.");
    stored.finishedConversation(earlier.subAgent(), "Research Kafka", "Kafka is a log.");
    ChatMessage also = stored.userMessage(CHAT, "Also MongoDB");
    model.replies(
        "{\"action\":\"reactivate\",\"subAgentId\":\""
            + earlier.subAgent().id()
            + "\",\"message\":\"Also research MongoDB\","
            + SURE
            + "}");

    Publication written = orchestrator.handle(also, false);

    SubAgentMessage followUp = conversation(earlier.subAgent()).getLast();
    assertThat(followUp.id()).isEqualTo(Ids.derived(also.id(), "follow-up"));
    assertThat(followUp.role()).isEqualTo("user");
    assertThat(followUp.content()).isEqualTo("Also research MongoDB");
    assertThat(followUp.seq()).isEqualTo(4);
    assertThat(events(followUp.outbox()))
        .singleElement()
        .isInstanceOfSatisfying(
            SubAgentMessageAdded.class,
            e -> {
              assertThat(e.messageId()).isEqualTo(followUp.id());
              assertThat(e.role()).isEqualTo("user");
              assertThat(e.subAgentId()).isEqualTo(earlier.subAgent().id());
              assertThat(e.taskId()).isEqualTo(earlier.task().id());
            });
    assertThat(written.collection()).isEqualTo(Collections.SUB_AGENT_MESSAGES);
    assertThat(written.outbox()).isEqualTo(followUp.outbox());
    assertThat(statusOf(earlier.subAgent())).isEqualTo(SubAgentStatus.active);
    assertThat(statusOf(earlier.task())).isEqualTo(TaskStatus.running);
    assertThat(mongo.findById(earlier.task().id(), Task.class).routing())
        .isEqualTo(new Task.Routing(0.9, "The person asked for it.", false));
    assertThat(mongo.findAll(Task.class)).hasSize(1);
    assertThat(assistantMessages()).isEmpty();
  }

  @Test
  void routesThePersonsAnswerToTheSubAgentThatAskedWithoutAskingTheModel() {
    Started asking =
        stored.startedTask(
            CHAT, "Research it", TaskStatus.waiting, SubAgentStatus.waiting_for_user, null);
    stored.askingConversation(asking.subAgent(), "call-ask-1", "What should I research?");
    ChatMessage reply = stored.userMessage(CHAT, "Kafka, please");

    Publication written = orchestrator.handle(reply, false);

    SubAgentMessage answer = conversation(asking.subAgent()).getLast();
    assertThat(answer.id()).isEqualTo(Ids.derived(reply.id(), "answer"));
    assertThat(answer.role()).isEqualTo("tool");
    assertThat(answer.toolCallId()).isEqualTo("call-ask-1");
    assertThat(answer.content()).isEqualTo("Kafka, please");
    assertThat(events(answer.outbox()))
        .singleElement()
        .isInstanceOfSatisfying(
            SubAgentMessageAdded.class, e -> assertThat(e.role()).isEqualTo("tool"));
    assertThat(written.outbox()).isEqualTo(answer.outbox());
    assertThat(statusOf(asking.subAgent())).isEqualTo(SubAgentStatus.active);
    assertThat(statusOf(asking.task())).isEqualTo(TaskStatus.running);
    assertThat(model.requests()).isEmpty();
    assertThat(assistantMessages()).isEmpty();
  }

  @Test
  void approveDecidesTheLatestCallAwaitingApprovalOnceWithoutAskingTheModel() {
    Started waiting =
        stored.startedTask(CHAT, "Save a note", TaskStatus.waiting, SubAgentStatus.active, null);
    ToolCall first = awaitingApproval(waiting, "c1");
    ToolCall latest = awaitingApproval(waiting, "c2");
    ChatMessage approve = stored.userMessage(CHAT, "Approve!");

    orchestrator.handle(approve, false);
    orchestrator.handle(approve, true); // redelivered

    assertThat(mongo.findById(latest.id(), ToolCall.class).status())
        .isEqualTo(ToolCallStatus.pending);
    assertThat(mongo.findById(first.id(), ToolCall.class).status())
        .as("the message decided one call")
        .isEqualTo(ToolCallStatus.awaiting_approval);
    assertThat(new MessageOutcomes(mongo).taskId(approve.id())).contains(waiting.task().id());
    assertThat(model.requests()).isEmpty();
  }

  @Test
  void rejectWithAReasonRejectsAndAnythingElseGoesToTheModel() {
    Started waiting =
        stored.startedTask(CHAT, "Save a note", TaskStatus.waiting, SubAgentStatus.active, null);
    ToolCall call = awaitingApproval(waiting, "c1");
    model.replies("{\"action\":\"answer\",\"answer\":\"Hi\"}");

    orchestrator.handle(stored.userMessage(CHAT, "Hello"), false);
    assertThat(mongo.findById(call.id(), ToolCall.class).status())
        .isEqualTo(ToolCallStatus.awaiting_approval);
    orchestrator.handle(stored.userMessage(CHAT, "reject: not today"), false);

    ToolCall rejected = mongo.findById(call.id(), ToolCall.class);
    assertThat(rejected.status()).isEqualTo(ToolCallStatus.failed);
    assertThat(rejected.error())
        .isEqualTo("{\"error_type\":\"rejected\",\"message\":\"not today\"}");
    assertThat(model.requests()).as("only Hello went to the model").hasSize(1);
  }

  private ToolCall awaitingApproval(Started started, String modelCallId) {
    ToolCall call = stored.toolCall(started.subAgent(), modelCallId, "write_note", "{}");
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(call.id())),
        new Update().set("status", ToolCallStatus.awaiting_approval),
        ToolCall.class);
    return call;
  }

  @Test
  void repairsAnInvalidDecisionOnceShowingTheModelItsReplyAndWhyItWasRefused() {
    ChatMessage hello = stored.userMessage(CHAT, "Hello");
    model.replies("Sure! I'll help.", "{\"action\":\"answer\",\"answer\":\"Hi there\"}");

    orchestrator.handle(hello, false);

    assertThat(onlyAssistantMessage().content()).isEqualTo("Hi there");
    assertThat(model.requests()).hasSize(2);
    List<ModelMessage> first = model.requests().get(0).messages();
    List<ModelMessage> second = model.requests().get(1).messages();
    assertThat(second).hasSize(first.size() + 2);
    assertThat(second.subList(0, first.size())).isEqualTo(first);
    assertThat(second.get(first.size()))
        .isEqualTo(ModelMessage.assistant("Sure! I'll help.", List.of()));
    ModelMessage repair = second.getLast();
    assertThat(repair.role()).isEqualTo("user");
    assertThat(repair.content())
        .startsWith("Your previous decision was invalid: the reply is not JSON")
        .contains("\"title\":\"OrchestratorDecision\"");
  }

  @Test
  void refusesAnUnknownAgentAndNamesTheAgentsThereAre() {
    ChatMessage poem = stored.userMessage(CHAT, "Write me a poem");
    model.replies(
        "{\"action\":\"new_task\",\"agent\":\"poet\",\"instruction\":\"Write a poem\","
            + SURE
            + "}",
        "{\"action\":\"answer\",\"answer\":\"I have no poet, sorry.\"}");

    orchestrator.handle(poem, false);

    assertThat(model.requests().get(1).messages().getLast().content())
        .startsWith(
            "Your previous decision was invalid: there is no agent 'poet'; the agents are:"
                + " analyst, assistant, researcher, scribe, writer");
    assertThat(mongo.findAll(Task.class)).isEmpty();
    assertThat(onlyAssistantMessage().content()).isEqualTo("I have no poet, sorry.");
  }

  @Test
  void refusesToReactivateASubAgentOfAnotherChat() {
    Started elsewhere =
        stored.startedTask(
            "other-chat", "Research Kafka", TaskStatus.success, SubAgentStatus.completed, "Log.");
    ChatMessage also = stored.userMessage(CHAT, "Also MongoDB");
    String foreign =
        "{\"action\":\"reactivate\",\"subAgentId\":\""
            + elsewhere.subAgent().id()
            + "\",\"message\":\"MongoDB\","
            + SURE
            + "}";
    model.replies(foreign, foreign, foreign);

    orchestrator.handle(also, false);

    assertThat(model.requests().get(1).messages().getLast().content())
        .contains("there is no sub-agent '" + elsewhere.subAgent().id() + "' in this chat");
    assertThat(conversation(elsewhere.subAgent())).isEmpty();
    assertThat(statusOf(elsewhere.subAgent())).isEqualTo(SubAgentStatus.completed);
    assertThat(onlyAssistantMessage().content())
        .startsWith("Sorry, I could not work out what to do with that.");
  }

  @Test
  void apologisesWhenTheDecisionIsStillInvalidAfterTwoRepairs() {
    ChatMessage hello = stored.userMessage(CHAT, "Hello");
    model.replies("{\"action\":\"dance\"}", "{\"action\":\"answer\"}", "Hi!");

    orchestrator.handle(hello, false);

    assertThat(model.requests()).hasSize(3);
    assertThat(model.requests().get(2).messages().getLast().content())
        .startsWith("Your previous decision was invalid: field 'answer'");
    assertThat(model.requests().get(1).messages().getLast().content())
        .startsWith(
            "Your previous decision was invalid: field 'action' must be one of answer, new_task,"
                + " plan, reactivate");
    ChatMessage apology = onlyAssistantMessage();
    assertThat(apology.id()).isEqualTo(Ids.derived(hello.id(), "answer"));
    assertThat(apology.content()).isEqualTo(Decider.APOLOGY_INVALID);
    assertThat(events(apology.outbox())).singleElement().isInstanceOf(ChatMessageAdded.class);
  }

  @Test
  void aConfidenceAboveOneIsRepairedWithTheReason() {
    ChatMessage research = stored.userMessage(CHAT, "Research Kafka");
    model.replies(
        "{\"action\":\"new_task\",\"agent\":\"researcher\",\"instruction\":\"Research Kafka\","
            + "\"confidence\":1.5,\"reason\":\"Sure.\"}",
        RESEARCH_KAFKA);

    orchestrator.handle(research, false);

    assertThat(model.requests().get(1).messages().getLast().content())
        .startsWith("Your previous decision was invalid: field 'confidence': ")
        .contains("1");
    assertThat(mongo.findAll(Task.class))
        .singleElement()
        .extracting(Task::routing)
        .isEqualTo(new Task.Routing(0.9, "The person asked for it.", false));
  }

  @Test
  void aTaskDecidedWithLowConfidenceGoesToTheFallbackAgent() {
    ChatMessage sing = stored.userMessage(CHAT, "Sing me a song");
    model.replies(
        "{\"action\":\"new_task\",\"agent\":\"researcher\",\"instruction\":\"Sing a song\","
            + "\"confidence\":0.4,\"reason\":\"Nobody here sings.\"}");

    orchestrator.handle(sing, false);

    Task task = mongo.findAll(Task.class).getFirst();
    assertThat(mongo.findAll(Task.class)).hasSize(1);
    assertThat(task.agent()).isEqualTo("assistant");
    assertThat(task.instruction()).isEqualTo("Sing a song");
    assertThat(task.routing()).isEqualTo(new Task.Routing(0.4, "Nobody here sings.", true));
    assertThat(events(task.outbox()))
        .singleElement()
        .isInstanceOfSatisfying(
            TaskCreated.class, e -> assertThat(e.agent()).isEqualTo("assistant"));
  }

  @Test
  void aTaskDecidedAtTheMinimumConfidenceGoesToTheAgentChosen() {
    ChatMessage research = stored.userMessage(CHAT, "Research Kafka");
    model.replies(
        "{\"action\":\"new_task\",\"agent\":\"researcher\",\"instruction\":\"Research Kafka\","
            + "\"confidence\":0.7,\"reason\":\"Probably research.\"}");

    orchestrator.handle(research, false);

    assertThat(mongo.findAll(Task.class))
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.agent()).isEqualTo("researcher");
              assertThat(t.routing()).isEqualTo(new Task.Routing(0.7, "Probably research.", false));
            });
  }

  @Test
  void withoutAFallbackAgentLowConfidenceAsksThePersonToClarify() {
    orchestrator =
        orchestrator(
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
    ChatMessage sing = stored.userMessage(CHAT, "Sing me a song");
    model.replies(
        "{\"action\":\"new_task\",\"agent\":\"researcher\",\"instruction\":\"Sing a song\","
            + "\"confidence\":0.2,\"reason\":\"Nobody here sings.\"}");

    orchestrator.handle(sing, false);
    orchestrator.handle(sing, true);

    assertThat(mongo.findAll(Task.class)).isEmpty();
    ChatMessage answer = onlyAssistantMessage();
    assertThat(answer.id()).isEqualTo(Ids.derived(sing.id(), "answer"));
    assertThat(answer.content()).isEqualTo(LowConfidence.CLARIFY);
    assertThat(model.requests()).hasSize(1);
  }

  @Test
  void startsEveryNodeWithoutDependenciesAtOnceAndNoOther() {
    ChatMessage report = stored.userMessage(CHAT, "Write a report on Kafka and Redis");
    model.replies(PLAN);

    Publication written = orchestrator.handle(report, false);

    Plan plan = mongo.findAll(Plan.class).getFirst();
    assertThat(plan.id()).isEqualTo(Ids.derived(report.id(), "plan"));
    assertThat(written.documentId()).isEqualTo(plan.id());
    assertThat(plan.status()).isEqualTo(PlanStatus.running);
    assertThat(plan.nodes())
        .extracting(PlanNode::id, PlanNode::status)
        .containsExactly(
            tuple("r1", PlanNodeStatus.running),
            tuple("r2", PlanNodeStatus.running),
            tuple("w", PlanNodeStatus.pending));
    assertThat(mongo.findAll(Task.class))
        .extracting(Task::id, Task::agent, Task::instruction)
        .containsExactlyInAnyOrder(
            tuple(Plans.taskId(plan.id(), "r1"), "researcher", "Research Kafka"),
            tuple(Plans.taskId(plan.id(), "r2"), "researcher", "Research Redis"));
    assertThat(mongo.findAll(Task.class))
        .extracting(Task::routing)
        .containsOnly(new Task.Routing(0.9, "A report needs research first.", false));
    assertThat(mongo.findAll(Task.class))
        .allSatisfy(
            t ->
                assertThat(events(t.outbox()))
                    .singleElement()
                    .isInstanceOfSatisfying(
                        TaskCreated.class, e -> assertThat(e.taskId()).isEqualTo(t.id())));
  }

  @Test
  void aRedeliveredPlanMessageStartsNoNodeTwiceAndAsksTheModelOnce() {
    stored.chat(CHAT, null);
    ChatMessage report = stored.userMessage(CHAT, "Write a report on Kafka and Redis");
    model.replies(PLAN);

    orchestrator.handle(report, false);
    orchestrator.handle(report, true);

    assertThat(model.requests()).hasSize(1);
    assertThat(mongo.findAll(Plan.class)).hasSize(1);
    assertThat(mongo.findAll(Task.class)).hasSize(2);
    assertThat(mongo.findById(CHAT, Chat.class).usage().turns())
        .as("the decision's tokens, with the plan's plan_created event, once")
        .isEqualTo(1);
  }

  @Test
  void anInvalidPlanIsRepairedThenAnsweredWithWhyItCouldNotPlanAndNeverRuns() {
    ChatMessage report = stored.userMessage(CHAT, "Write a report on Kafka and Redis");
    String cycle =
        """
        {"action":"plan","nodes":[
          {"id":"a","agent":"researcher","instruction":"Research Kafka","dependsOn":["b"]},
          {"id":"b","agent":"writer","instruction":"Write","dependsOn":["a"]}],
         "confidence":0.9,"reason":"A report needs research first."}""";
    model.replies(cycle, cycle, cycle);

    orchestrator.handle(report, false);

    assertThat(model.requests()).hasSize(3);
    assertThat(model.requests().get(1).messages().getLast().content())
        .startsWith("Your previous decision was invalid: the plan has a cycle: a → b → a");
    assertThat(mongo.findAll(Plan.class)).isEmpty();
    assertThat(mongo.findAll(Task.class)).isEmpty();
    assertThat(onlyAssistantMessage().content())
        .isEqualTo(
            "Sorry, I could not make a plan for that: the plan has a cycle: a → b → a; a node"
                + " cannot wait, even through others, for itself.");
  }

  @Test
  void aPlansNodesAreNotOfferedForFollowUps() {
    ChatMessage report = stored.userMessage(CHAT, "Write a report on Kafka and Redis");
    model.replies(PLAN, "{\"action\":\"answer\",\"answer\":\"Hi\"}");
    orchestrator.handle(report, false);

    orchestrator.handle(stored.userMessage(CHAT, "Hello"), false);

    assertThat(model.requests().get(1).messages().getFirst().content()).contains("\"tasks\":[]");
  }

  private static final String PLAN =
      """
      {"action":"plan","nodes":[
        {"id":"r1","agent":"researcher","instruction":"Research Kafka"},
        {"id":"r2","agent":"researcher","instruction":"Research Redis","dependsOn":[]},
        {"id":"w","agent":"writer","instruction":"Write a report","dependsOn":["r1","r2"]}],
       "confidence":0.9,"reason":"A report needs research first."}""";

  @Test
  void retriesAModelThatKeepsFailingThenApologises() {
    ChatMessage hello = stored.userMessage(CHAT, "Hello");
    model
        .fails(ScriptedModel.transientFailure())
        .fails(ScriptedModel.transientFailure())
        .fails(ScriptedModel.transientFailure());

    orchestrator.handle(hello, false);

    assertThat(model.requests()).hasSize(3);
    assertThat(onlyAssistantMessage().content()).isEqualTo(Decider.APOLOGY_MODEL_FAILED);
  }

  @Test
  void retriesATransientModelFailureThenCarriesOutTheDecision() {
    ChatMessage research = stored.userMessage(CHAT, "Research Kafka");
    model.fails(ScriptedModel.transientFailure()).replies(RESEARCH_KAFKA);

    orchestrator.handle(research, false);

    assertThat(model.requests()).hasSize(2);
    assertThat(model.requests().get(1)).isEqualTo(model.requests().get(0));
    assertThat(mongo.findAll(Task.class)).hasSize(1);
  }

  @Test
  void apologisesAtOnceWhenTheModelFailsForGood() {
    ChatMessage hello = stored.userMessage(CHAT, "Hello");
    model.fails(ScriptedModel.permanentFailure());

    orchestrator.handle(hello, false);

    assertThat(model.requests()).hasSize(1);
    assertThat(onlyAssistantMessage().content()).isEqualTo(Decider.APOLOGY_MODEL_FAILED);
  }

  @Test
  void aRedeliveredMessageMakesNoSecondTaskAndNoSecondModelCall() {
    ChatMessage research = stored.userMessage(CHAT, "Research Kafka");
    model.replies(RESEARCH_KAFKA);

    Publication first = orchestrator.handle(research, false);
    Publication again = orchestrator.handle(research, true);

    assertThat(model.requests()).hasSize(1);
    assertThat(mongo.findAll(Task.class)).hasSize(1);
    assertThat(again)
        .as("the same event to publish; a position is passed on only as the handoff is recorded")
        .usingRecursiveComparison()
        .ignoringFields("headers")
        .isEqualTo(first);
  }

  @Test
  void aRedeliveredMessageMakesNoSecondAnswerAndNoSecondModelCall() {
    ChatMessage hello = stored.userMessage(CHAT, "Hello");
    model.replies("{\"action\":\"answer\",\"answer\":\"Hi\"}");

    orchestrator.handle(hello, false);
    orchestrator.handle(hello, true);

    assertThat(model.requests()).hasSize(1);
    assertThat(assistantMessages()).hasSize(1);
  }

  @Test
  void aRedeliveredFollowUpIsSentOnce() {
    Started earlier =
        stored.startedTask(
            CHAT, "Research Kafka", TaskStatus.success, SubAgentStatus.completed, "A log.");
    stored.finishedConversation(earlier.subAgent(), "Research Kafka", "A log.");
    ChatMessage also = stored.userMessage(CHAT, "Also MongoDB");
    model.replies(
        "{\"action\":\"reactivate\",\"subAgentId\":\""
            + earlier.subAgent().id()
            + "\",\"message\":\"MongoDB\","
            + SURE
            + "}");

    orchestrator.handle(also, false);
    orchestrator.handle(also, true);

    assertThat(model.requests()).hasSize(1);
    assertThat(conversation(earlier.subAgent())).hasSize(4);
  }

  @Test
  void aRedeliveredAnswerToAQuestionIsRoutedOnceAndNeverReachesTheModel() {
    Started asking =
        stored.startedTask(
            CHAT, "Research it", TaskStatus.waiting, SubAgentStatus.waiting_for_user, null);
    stored.askingConversation(asking.subAgent(), "call-ask-1", "What should I research?");
    ChatMessage reply = stored.userMessage(CHAT, "Kafka");

    orchestrator.handle(reply, false);
    orchestrator.handle(reply, true);

    assertThat(conversation(asking.subAgent())).hasSize(4);
    assertThat(model.requests()).isEmpty();
    assertThat(assistantMessages()).isEmpty();
  }

  @Test
  void aRedeliveryAfterACrashFinishesWakingTheSubAgentAndPublishesItsEventAgain() {
    Started asking =
        stored.startedTask(
            CHAT, "Research it", TaskStatus.waiting, SubAgentStatus.waiting_for_user, null);
    stored.askingConversation(asking.subAgent(), "call-ask-1", "What should I research?");
    ChatMessage reply = stored.userMessage(CHAT, "Kafka");
    orchestrator.handle(reply, false);
    // The crash: statuses not moved yet, and the relay already published the event.
    moveBack(asking);
    clearOutbox(Ids.derived(reply.id(), "answer"));

    Publication again = orchestrator.handle(reply, true);

    assertThat(statusOf(asking.subAgent())).isEqualTo(SubAgentStatus.active);
    assertThat(statusOf(asking.task())).isEqualTo(TaskStatus.running);
    assertThat(events(again.outbox()))
        .singleElement()
        .isInstanceOfSatisfying(
            SubAgentMessageAdded.class,
            e -> assertThat(e.messageId()).isEqualTo(Ids.derived(reply.id(), "answer")));
    SubAgentMessage answer = conversation(asking.subAgent()).getLast();
    assertThat(answer.outbox()).hasSize(1);
    assertThat(model.requests()).isEmpty();
  }

  @Test
  void aRedeliveryAfterTheSubAgentMovedOnLeavesItsStateAlone() {
    Started asking =
        stored.startedTask(
            CHAT, "Research it", TaskStatus.waiting, SubAgentStatus.waiting_for_user, null);
    stored.askingConversation(asking.subAgent(), "call-ask-1", "What should I research?");
    ChatMessage reply = stored.userMessage(CHAT, "Kafka");
    orchestrator.handle(reply, false);
    clearOutbox(Ids.derived(reply.id(), "answer"));
    // Meanwhile the sub-agent took the answer up and asked again.
    stored.askingConversation(asking.subAgent(), "call-ask-2", "Which part of Kafka?");
    moveBack(asking);

    Publication again = orchestrator.handle(reply, true);

    assertThat(again.outbox()).isEmpty();
    assertThat(statusOf(asking.subAgent())).isEqualTo(SubAgentStatus.waiting_for_user);
    assertThat(statusOf(asking.task())).isEqualTo(TaskStatus.waiting);
    assertThat(model.requests()).isEmpty();
  }

  @Test
  void theModelSeesTheAgentsTheTasksAndTheLastMessagesButNoSubAgentsConversation() {
    Started done =
        stored.startedTask(
            CHAT,
            "Research Kafka",
            TaskStatus.success,
            SubAgentStatus.completed,
            "Kafka is a distributed log.\nSources: kafka.md");
    stored.finishedConversation(done.subAgent(), "Research Kafka", "SECRET sub-agent reasoning");
    Instant now = Instant.now();
    mongo.insert( // a child task: its agent's, not the chat's to follow up
        new Task(
            "child-task",
            CHAT,
            Task.TYPE_AGENT,
            "researcher",
            "Research MongoDB",
            null,
            TaskStatus.success,
            "child-sub-agent",
            "MongoDB stores documents.",
            null,
            null,
            now,
            now,
            List.of(),
            new Task.Delegation(
                done.task().id(), done.subAgent().id(), done.task().id(), 1, "c", "c", null),
            now,
            now));
    for (int i = 1; i <= 12; i++) {
      stored.userMessage(CHAT, "question " + i);
      stored.assistantMessage(CHAT, "answer " + i);
    }
    stored.userMessage("other-chat", "not this chat");
    ChatMessage latest = stored.userMessage(CHAT, "Hello");
    model.replies("{\"action\":\"answer\",\"answer\":\"Hi\"}");

    orchestrator.handle(latest, false);

    ModelRequest request = model.requests().getFirst();
    assertThat(request.purpose()).isEqualTo(ModelRequest.Purpose.DECISION);
    assertThat(request.tools()).isEmpty();
    assertThat(request.responseSchema()).contains("\"title\":\"OrchestratorDecision\"");
    List<ModelMessage> messages = request.messages();
    assertThat(messages).hasSize(21);
    ModelMessage system = messages.getFirst();
    assertThat(system.role()).isEqualTo("system");
    assertThat(system.content().lines().toList().getLast())
        .isEqualTo(
            "Context: {\"agents\":[{\"name\":\"analyst\",\"description\":\"Splits a comparison or"
                + " a question with several parts into one request per subject, has researchers"
                + " work on them in parallel, and writes one answer.\"},"
                + "{\"name\":\"assistant\",\"description\":\"A general assistant for requests"
                + " no other agent fits; says what this system can do and answers what it can"
                + " itself. Uses no tools.\"},"
                + "{\"name\":\"researcher\",\"description\":\"Researches a subject"
                + " in the project's documents and answers with sources.\"},"
                + "{\"name\":\"scribe\",\"description\":\"Writes a note (a markdown file) with"
                + " what the person asks to keep; a person approves each note first.\"},"
                + "{\"name\":\"writer\",\"description\":\"Writes a report from the material in"
                + " its instruction (the results of the tasks it depends on in a plan), with a"
                + " section per subject and its sources. Uses no tools.\"}],\"tasks\":[{\"taskId\":\""
                + done.task().id()
                + "\",\"subAgentId\":\""
                + done.subAgent().id()
                + "\",\"agent\":\"researcher\",\"status\":\"success\",\"result\":\"Kafka is a"
                + " distributed log.\"}]}");
    assertThat(messages.get(1)).isEqualTo(ModelMessage.assistant("answer 3", List.of()));
    assertThat(messages.get(2)).isEqualTo(ModelMessage.user("question 4"));
    assertThat(messages.getLast()).isEqualTo(ModelMessage.user("Hello"));
    assertThat(messages)
        .extracting(ModelMessage::content)
        .noneMatch(c -> c.contains("SECRET") || c.contains("not this chat"));
  }

  @Test
  void aDecisionSeesWhatTheMessageBeforeLedToEvenWhenThatCameAfterThisMessageWasSent() {
    ChatMessage first = stored.userMessage(CHAT, "Hello");
    ChatMessage second = stored.userMessage(CHAT, "What can you do?");
    model.replies(
        "{\"action\":\"answer\",\"answer\":\"Hi!\"}",
        "{\"action\":\"answer\",\"answer\":\"Research.\"}");
    orchestrator.handle(first, false);

    orchestrator.handle(second, false);

    assertThat(model.requests().getFirst().messages())
        .as("the first decision does not see the message sent after it")
        .extracting(ModelMessage::content)
        .endsWith("Hello")
        .doesNotContain("What can you do?");
    assertThat(model.requests().get(1).messages().subList(1, 4))
        .containsExactly(
            ModelMessage.user("Hello"),
            ModelMessage.assistant("Hi!", List.of()),
            ModelMessage.user("What can you do?"));
  }

  @Test
  void aTaskWithoutSubAgentYetIsListedWithoutOne() {
    ChatMessage first = stored.userMessage(CHAT, "Research Kafka");
    model.replies(RESEARCH_KAFKA, "{\"action\":\"answer\",\"answer\":\"Hi\"}");
    orchestrator.handle(first, false);
    ChatMessage second = stored.userMessage(CHAT, "Hello");

    orchestrator.handle(second, false);

    String context =
        model.requests().get(1).messages().getFirst().content().lines().toList().getLast();
    assertThat(context)
        .endsWith(
            "\"tasks\":[{\"taskId\":\""
                + Ids.derived(first.id(), "task")
                + "\",\"agent\":\"researcher\",\"status\":\"created\"}]}");
  }

  // --- models and tokens ---

  @Test
  void decidesWithTheMessagesModelOverTheChatsAndTheTaskItStartsKeepsIt() {
    stored.chat(CHAT, "chat-model");
    ChatMessage first = stored.userMessage(CHAT, "Hello");
    ChatMessage second = stored.userMessage(CHAT, "Research Kafka", "message-model");
    model.replies("{\"action\":\"answer\",\"answer\":\"Hi\"}", RESEARCH_KAFKA);

    orchestrator.handle(first, false);
    orchestrator.handle(second, false);

    assertThat(model.requests())
        .extracting(ModelRequest::model)
        .containsExactly("chat-model", "message-model");
    assertThat(onlyAssistantMessage().model()).isEqualTo("chat-model");
    assertThat(mongo.findAll(Task.class))
        .singleElement()
        .extracting(Task::model)
        .isEqualTo("message-model");
  }

  @Test
  void withoutAChosenModelTheDecisionAndTheTaskUseTheDefault() {
    stored.chat(CHAT, null);
    ChatMessage research = stored.userMessage(CHAT, "Research Kafka");
    model.replies(RESEARCH_KAFKA);

    orchestrator.handle(research, false);

    assertThat(model.requests().getFirst().model()).isNull();
    assertThat(mongo.findAll(Task.class).getFirst().model()).isNull();
  }

  /**
   * The chat read for the model gives its limits too: the task's event carries them, so that
   * agent-init need not read the chat. A chat without limits is carried as one without (an empty
   * object), not as unknown.
   */
  @Test
  void theTasksEventCarriesTheLimitsOfTheChatReadForItsModel() {
    mongo.insert(
        new Chat(
            CHAT, "test", null, Instant.now(), null, new ChatLimits(4, null, 60L), null, null));
    stored.chat("unlimited", null);
    model.replies(RESEARCH_KAFKA, RESEARCH_KAFKA);

    orchestrator.handle(stored.userMessage(CHAT, "Research Kafka"), false);
    orchestrator.handle(stored.userMessage("unlimited", "Research Kafka"), false);

    assertThat(mongo.findAll(Task.class))
        .flatExtracting(task -> events(task.outbox()))
        .extracting(event -> ((TaskCreated) event).chatLimits())
        .containsExactlyInAnyOrder(
            new TaskCreated.Limits(4, null, 60L), new TaskCreated.Limits(null, null, null));
  }

  /**
   * A message carries its chat's settings as the write that admitted it read them: its decision
   * reads no chat, and the task's event carries the limits.
   */
  @Test
  void aMessageThatCarriesItsChatsSettingsIsDecidedWithoutReadingTheChat() {
    stored.chat(CHAT, "stored-model");
    ChatMessage research =
        mongo.insert(
            ChatMessage.fromPerson(
                Ids.fresh(),
                CHAT,
                "Research Kafka",
                null,
                new ChatMessage.ChatSettings("chat-model", new ChatLimits(4, null, 60L)),
                Instant.now(),
                List.of()));
    model.replies(RESEARCH_KAFKA);
    COMMANDS.clear();

    orchestrator.handle(research, false);

    assertThat(model.requests().getFirst().model()).isEqualTo("chat-model");
    Task task = mongo.findAll(Task.class).getFirst();
    assertThat(task.model()).isEqualTo("chat-model");
    assertThat(events(task.outbox()))
        .singleElement()
        .extracting(event -> ((TaskCreated) event).chatLimits())
        .isEqualTo(new TaskCreated.Limits(4, null, 60L));
    assertThat(COMMANDS.from(thread -> true)).doesNotContain("find " + Collections.CHATS);
  }

  @Test
  void theDecisionsTokensRepairIncludedCountOnTheChatOnceHoweverOftenTheMessageComes() {
    stored.chat(CHAT, "chat-model");
    ChatMessage hello = stored.userMessage(CHAT, "Hello");
    model.replies("Sure!", "{\"action\":\"answer\",\"answer\":\"Hi\"}");

    orchestrator.handle(hello, false);
    orchestrator.handle(hello, true);

    assertThat(model.requests()).hasSize(2);
    assertThat(onlyAssistantMessage().usage()).isEqualTo(new TurnUsage(20, 20));
    Usage usage = mongo.findById(CHAT, Chat.class).usage();
    assertThat(usage.promptTokens()).isEqualTo(20);
    assertThat(usage.completionTokens()).isEqualTo(20);
    assertThat(usage.turns()).isEqualTo(2);
    assertThat(usage.byModel()).containsOnlyKeys("chat-model");
  }

  /**
   * The decision's tokens go with the task's {@code handoff} event: the ledger's append adds them
   * to the chat, once, whichever of the two copies of the decision gets there.
   */
  @Test
  void aDecisionThatStartsATaskCountsOnTheChatNotOnTheTask() {
    stored.chat(CHAT, null);
    ChatMessage research = stored.userMessage(CHAT, "Research Kafka");
    model.replies(RESEARCH_KAFKA);
    COMMANDS.clear();

    orchestrator.handle(research, false);
    orchestrator.handle(research, true);

    assertThat(mongo.findById(CHAT, Chat.class).usage().turns()).isEqualTo(1);
    assertThat(mongo.findAll(Task.class).getFirst().usage()).isNull();
    assertThat(COMMANDS.from(thread -> true))
        .filteredOn(("update " + Collections.CHATS)::equals)
        .hasSize(1);
  }

  @Test
  void aFollowUpDecisionCountsOnTheChatOnce() {
    stored.chat(CHAT, null);
    Started earlier =
        stored.startedTask(
            CHAT, "Research Kafka", TaskStatus.success, SubAgentStatus.completed, "A log.");
    stored.finishedConversation(earlier.subAgent(), "Research Kafka", "A log.");
    ChatMessage also = stored.userMessage(CHAT, "Also MongoDB");
    model.replies(
        "{\"action\":\"reactivate\",\"subAgentId\":\""
            + earlier.subAgent().id()
            + "\",\"message\":\"MongoDB\","
            + SURE
            + "}");

    orchestrator.handle(also, false);
    orchestrator.handle(also, true);

    assertThat(mongo.findById(CHAT, Chat.class).usage())
        .extracting(Usage::promptTokens, Usage::turns)
        .containsExactly(10L, 1L);
  }

  @Test
  void aModelThatNeverRepliedCountsNothing() {
    stored.chat(CHAT, null);
    ChatMessage hello = stored.userMessage(CHAT, "Hello");
    model.fails(ScriptedModel.permanentFailure());

    orchestrator.handle(hello, false);

    assertThat(onlyAssistantMessage().usage()).isNull();
    assertThat(mongo.findById(CHAT, Chat.class).usage()).isNull();
  }

  // --- reading the stored state ---

  private static List<Event> events(List<OutboxEntry> outbox) {
    return outbox.stream()
        .map(e -> CODEC.decode(e.ceType(), e.payload().getBytes(StandardCharsets.UTF_8)))
        .toList();
  }

  private static List<ChatMessage> assistantMessages() {
    return mongo.findAll(ChatMessage.class).stream()
        .filter(m -> m.role().equals(ChatMessage.ASSISTANT))
        .toList();
  }

  private static ChatMessage onlyAssistantMessage() {
    assertThat(assistantMessages()).hasSize(1);
    return assistantMessages().getFirst();
  }

  private static List<SubAgentMessage> conversation(SubAgent subAgent) {
    return new SubAgentConversations(mongo).messages(subAgent.id());
  }

  private static SubAgentStatus statusOf(SubAgent subAgent) {
    return mongo.findById(subAgent.id(), SubAgent.class).status();
  }

  private static TaskStatus statusOf(Task task) {
    return mongo.findById(task.id(), Task.class).status();
  }

  private static void moveBack(Started started) {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(started.subAgent().id())),
        new Update().set("status", SubAgentStatus.waiting_for_user),
        SubAgent.class);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(started.task().id())),
        new Update().set("status", TaskStatus.waiting),
        Task.class);
  }

  private static void clearOutbox(String subAgentMessageId) {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgentMessageId)),
        new Update().set("outbox", List.of()),
        SubAgentMessage.class);
  }
}
