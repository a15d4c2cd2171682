package dev.agentrt.orchestrator.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.EventType;
import dev.agentrt.orchestrator.decision.WaitingQuestions;
import dev.agentrt.orchestrator.openai.OpenAiErrors;
import dev.agentrt.orchestrator.testing.SettableClock;
import dev.agentrt.orchestrator.testing.SignedIn;
import dev.agentrt.orchestrator.testing.Stored;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Leases;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StoreIndexes;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.testing.InMemoryMongo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/**
 * The feedback endpoint over HTTP (MockMvc) on a real MongoDB-protocol server; the broker is away,
 * so what a decision publishes stays in the outbox of the document it was written with.
 */
class FeedbackControllerTest {

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  private Stored stored;
  private ToolCallApprovals approvals;
  private MockMvc http;
  private SubAgent subAgent;
  private Task task;

  @BeforeAll
  static void startMongo() {
    database = InMemoryMongo.start();
    mongo = database.template();
  }

  @AfterAll
  static void stopMongo() {
    database.close();
  }

  @AfterEach
  void signOut() {
    SignedIn.signOut();
  }

  @BeforeEach
  void api() {
    database.clear();
    new StoreIndexes(mongo).afterPropertiesSet();
    SignedIn.asLocalUser();
    EventPublisher noBroker =
        new EventPublisher(null, "test") {
          @Override
          public CompletableFuture<?> send(OutboxEntry entry, Map<String, String> headers) {
            return CompletableFuture.failedFuture(new IllegalStateException("no broker"));
          }
        };
    Outbox outbox = new Outbox(noBroker, mongo);
    SubAgentConversations conversations = new SubAgentConversations(mongo);
    RunLedger ledger = new RunLedger(mongo);
    approvals =
        new ToolCallApprovals(
            mongo,
            conversations,
            outbox,
            new EventCodec(),
            ledger,
            new Leases(mongo, ToolCall.class, ToolCall.LEASE, Duration.ofSeconds(30), null));
    FeedbackController controller =
        new FeedbackController(
            new ChatAccess(mongo),
            new Chats(
                mongo,
                new BulkWrites(mongo),
                outbox,
                new EventCodec(),
                ledger,
                new ChatMessageRate(mongo, 100, new SettableClock())),
            approvals,
            new WaitingQuestions(mongo, conversations),
            new Guidance(mongo, conversations, outbox, new EventCodec(), ledger));
    http =
        MockMvcBuilders.standaloneSetup(controller, new OpenAiFeedbackController(controller))
            .setControllerAdvice(new OpenAiErrors(), new ApiErrors())
            .build();
    stored = new Stored(mongo);
    stored.chat("chat-1", null);
    Stored.Started started =
        stored.startedTask(
            "chat-1", "Save a note", TaskStatus.waiting, SubAgentStatus.active, null);
    subAgent = started.subAgent();
    task = started.task();
  }

  private ToolCall awaiting(String modelCallId) {
    ToolCall call = stored.toolCall(subAgent, modelCallId, "write_note", "{\"title\":\"t\"}");
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(call.id())),
        new Update()
            .set("status", ToolCallStatus.awaiting_approval)
            .unset("result")
            .unset("latencyMs"),
        ToolCall.class);
    return call;
  }

  private ResultActions feedback(String body) throws Exception {
    return http.perform(
        post("/api/chats/chat-1/feedback").contentType(MediaType.APPLICATION_JSON).content(body));
  }

  private ToolCall call(ToolCall call) {
    return mongo.findById(call.id(), ToolCall.class);
  }

  @Test
  void anApprovedCallIsStoredPendingWithItsRequestInTheSameWriteAndTheTaskRunsAgain()
      throws Exception {
    ToolCall call = awaiting("c1");

    feedback("{\"type\":\"approval\",\"toolCallId\":\"" + call.id() + "\",\"approved\":true}")
        .andExpect(status().isAccepted())
        .andExpect(jsonPath("$.outcome").value("approved"));

    ToolCall approved = call(call);
    assertThat(approved.status()).isEqualTo(ToolCallStatus.pending);
    assertThat(approved.outbox())
        .as("ToolCallRequested, left to the relay with the broker away")
        .singleElement()
        .satisfies(e -> assertThat(e.ceType()).isEqualTo(EventType.TOOL_CALL_REQUESTED.ceType()));
    assertThat(mongo.findById(task.id(), Task.class).status()).isEqualTo(TaskStatus.running);
    assertThat(new RunLedger(mongo).after("chat-1", 0, 10))
        .filteredOn(e -> e.type().equals(RunEvent.APPROVAL_DECIDED))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.data())
                    .containsEntry("approved", true)
                    .containsEntry("by", "local")
                    .containsKey("at"));
  }

  @Test
  void aRejectedCallFailsAndItsToolMessageTellsTheModelWhyWithoutEverBeingRequested()
      throws Exception {
    ToolCall call = awaiting("c1");

    feedback(
            "{\"type\":\"approval\",\"toolCallId\":\""
                + call.id()
                + "\",\"approved\":false,\"reason\":\"not now\"}")
        .andExpect(status().isAccepted())
        .andExpect(jsonPath("$.outcome").value("rejected"));

    ToolCall rejected = call(call);
    assertThat(rejected.status()).isEqualTo(ToolCallStatus.failed);
    assertThat(rejected.error()).isEqualTo("{\"error_type\":\"rejected\",\"message\":\"not now\"}");
    assertThat(rejected.outbox()).as("never announced to tool-runner").isEmpty();
    assertThat(rejected.lease()).as("the hold ends once the tool message is there").isNull();
    SubAgentMessage message =
        mongo.findById(ToolCall.toolMessageId(call.id()), SubAgentMessage.class);
    assertThat(message.role()).isEqualTo(SubAgentMessage.TOOL);
    assertThat(message.toolCallId()).isEqualTo("c1");
    assertThat(message.content()).isEqualTo(rejected.error());
    assertThat(message.outbox()).as("its SubAgentMessageAdded wakes the loop").hasSize(1);
  }

  @Test
  void theOpenAiSidePathTakesTheSameFeedback() throws Exception {
    ToolCall call = awaiting("c1");

    http.perform(
            post("/v1/orchestration/chat-1/feedback")
                .contentType(MediaType.APPLICATION_JSON)
                .content(
                    "{\"type\":\"approval\",\"toolCallId\":\""
                        + call.id()
                        + "\",\"approved\":true}"))
        .andExpect(status().isAccepted());

    assertThat(call(call).status()).isEqualTo(ToolCallStatus.pending);
  }

  @Test
  void theOpenAiSidePathRefusesInOpenAisErrorShape() throws Exception {
    ToolCall call = awaiting("c1");
    String approve =
        "{\"type\":\"approval\",\"toolCallId\":\"" + call.id() + "\",\"approved\":true}";
    openAiFeedback(approve).andExpect(status().isAccepted());

    openAiFeedback(approve)
        .andExpect(status().isConflict())
        .andExpect(jsonPath("$.error.type").value("invalid_request_error"))
        .andExpect(
            jsonPath("$.error.message")
                .value(org.hamcrest.Matchers.containsString("awaits no approval")));
    openAiFeedback("{\"type\":\"\"}")
        .andExpect(status().isBadRequest())
        .andExpect(jsonPath("$.error.param").value("type"))
        .andExpect(jsonPath("$.error.message").value(org.hamcrest.Matchers.startsWith("type: ")));
    openAiFeedback("{not json")
        .andExpect(status().isBadRequest())
        .andExpect(jsonPath("$.error.type").value("invalid_request_error"));
    http.perform(
            post("/v1/orchestration/no-such-chat/feedback")
                .contentType(MediaType.APPLICATION_JSON)
                .content(approve))
        .andExpect(status().isNotFound())
        .andExpect(jsonPath("$.error.message").value("no chat with id no-such-chat"));
    feedback(approve)
        .andExpect(status().isConflict())
        .andExpect(jsonPath("$.detail").exists())
        .andExpect(jsonPath("$.error").doesNotExist());
  }

  private ResultActions openAiFeedback(String body) throws Exception {
    return http.perform(
        post("/v1/orchestration/chat-1/feedback")
            .contentType(MediaType.APPLICATION_JSON)
            .content(body));
  }

  @Test
  void aSecondDecisionOnTheSameCallIsAConflict() throws Exception {
    ToolCall call = awaiting("c1");
    String approve =
        "{\"type\":\"approval\",\"toolCallId\":\"" + call.id() + "\",\"approved\":true}";
    feedback(approve).andExpect(status().isAccepted());

    feedback(approve)
        .andExpect(status().isConflict())
        .andExpect(
            jsonPath("$.detail")
                .value(
                    "tool call "
                        + call.id()
                        + " awaits no approval: it is pending (decided already, or never gated)"));
  }

  @Test
  void twoDecisionsAtOnceStoreExactlyOne() throws Exception {
    ToolCall call = awaiting("c1");
    CyclicBarrier together = new CyclicBarrier(2);
    List<Future<ToolCallApprovals.Outcome>> outcomes = new ArrayList<>();
    try (ExecutorService two = Executors.newFixedThreadPool(2)) {
      for (boolean approved : List.of(true, false)) {
        outcomes.add(
            two.submit(
                () -> {
                  together.await();
                  return approvals.decide("chat-1", call.id(), approved, "no", "local");
                }));
      }
    }
    List<ToolCallApprovals.Outcome> results = new ArrayList<>();
    for (Future<ToolCallApprovals.Outcome> outcome : outcomes) {
      results.add(outcome.get());
    }

    assertThat(results).filteredOn(o -> o instanceof ToolCallApprovals.Outcome.Decided).hasSize(1);
    assertThat(results)
        .filteredOn(o -> o instanceof ToolCallApprovals.Outcome.NotAwaiting)
        .hasSize(1);
    ToolCall decided = call(call);
    boolean approvedWon = decided.status() == ToolCallStatus.pending;
    assertThat(decided.outbox()).hasSize(approvedWon ? 1 : 0);
    assertThat(
            mongo.exists(
                Query.query(Criteria.where("_id").is(ToolCall.toolMessageId(call.id()))),
                SubAgentMessage.class))
        .isEqualTo(!approvedWon);
  }

  @Test
  void theTaskWaitsOnWhileAnotherOfItsCallsAwaitsApproval() throws Exception {
    ToolCall first = awaiting("c1");
    ToolCall second = awaiting("c2");

    feedback("{\"type\":\"approval\",\"toolCallId\":\"" + first.id() + "\",\"approved\":true}")
        .andExpect(status().isAccepted());
    assertThat(mongo.findById(task.id(), Task.class).status()).isEqualTo(TaskStatus.waiting);

    feedback("{\"type\":\"approval\",\"toolCallId\":\"" + second.id() + "\",\"approved\":false}")
        .andExpect(status().isAccepted());
    assertThat(mongo.findById(task.id(), Task.class).status()).isEqualTo(TaskStatus.running);
    assertThat(call(second).error()).contains("rejected by the person");
  }

  @Test
  void aCallOfAnotherChatOrAnotherUsersChatIsNotFound() throws Exception {
    ToolCall call = awaiting("c1");
    mongo.insert(new Chat("chat-2", "t", Instant.now()));
    http.perform(
            post("/api/chats/chat-2/feedback")
                .contentType(MediaType.APPLICATION_JSON)
                .content(
                    "{\"type\":\"approval\",\"toolCallId\":\""
                        + call.id()
                        + "\",\"approved\":true}"))
        .andExpect(status().isNotFound());

    SignedIn.as("mallory");
    feedback("{\"type\":\"approval\",\"toolCallId\":\"" + call.id() + "\",\"approved\":true}")
        .andExpect(status().isNotFound());
    assertThat(call(call).status()).isEqualTo(ToolCallStatus.awaiting_approval);
  }

  @Test
  void badFeedbackIsRefusedWithTheReason() throws Exception {
    feedback("{\"type\":\"selfie\"}")
        .andExpect(status().isBadRequest())
        .andExpect(
            jsonPath("$.detail")
                .value(
                    "type must be one of approval, clarification, information, selection,"
                        + " guidance; not 'selfie'"));
    feedback("{\"type\":\"approval\",\"toolCallId\":\"x\"}")
        .andExpect(status().isBadRequest())
        .andExpect(
            jsonPath("$.detail")
                .value("an approval needs toolCallId and approved (true or false)"));
    feedback("{\"type\":\"guidance\",\"text\":\"faster\"}").andExpect(status().isBadRequest());
    feedback("{\"type\":\"clarification\"}").andExpect(status().isBadRequest());
  }

  @Test
  void aClarificationWithNoQuestionWaitingIsAConflictAndOneWithAQuestionIsTheAnswer()
      throws Exception {
    feedback("{\"type\":\"clarification\",\"text\":\"Kafka\"}")
        .andExpect(status().isConflict())
        .andExpect(jsonPath("$.detail").value("no question waits for an answer in this chat"));
    assertThat(mongo.findAll(ChatMessage.class)).isEmpty();

    stored.askingConversation(subAgent, "ask-1", "What should I research?");
    feedback("{\"type\":\"information\",\"text\":\"Kafka\"}")
        .andExpect(status().isAccepted())
        .andExpect(jsonPath("$.outcome").value("answered"));

    assertThat(mongo.findAll(ChatMessage.class))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.role()).isEqualTo(ChatMessage.USER);
              assertThat(m.content()).isEqualTo("Kafka");
            });
  }

  @Test
  void aSelectionAnswersAQuestionWithOptionsWithOneOfThem() throws Exception {
    stored.askingConversation(subAgent, "ask-open", "What should I research?");
    feedback("{\"type\":\"selection\",\"option\":\"Kafka\"}")
        .andExpect(status().isConflict())
        .andExpect(
            jsonPath("$.detail")
                .value("the question waiting offers no options: send a clarification"));
    stored.append(subAgent, SubAgentMessage.TOOL, "Streams", List.of(), "ask-open");
    stored.append(
        subAgent,
        SubAgentMessage.ASSISTANT,
        null,
        List.of(
            new dev.agentrt.store.RequestedToolCall(
                "ask-2",
                "ask_user",
                "{\"question\":\"Which?\",\"options\":[\"Kafka\",\"MongoDB\"]}")),
        null);

    feedback("{\"type\":\"selection\",\"option\":\"Redis\"}")
        .andExpect(status().isBadRequest())
        .andExpect(
            jsonPath("$.detail").value("'Redis' is not one of the options [Kafka, MongoDB]"));
    feedback("{\"type\":\"selection\",\"option\":\"MongoDB\"}")
        .andExpect(status().isAccepted())
        .andExpect(jsonPath("$.outcome").value("answered"));

    assertThat(mongo.findAll(ChatMessage.class))
        .singleElement()
        .satisfies(m -> assertThat(m.content()).isEqualTo("MongoDB"));
  }

  @Test
  void guidanceReachesAnActiveSubAgentsConversationAndACompletedOneAsAFollowUp() throws Exception {
    String guide = "{\"type\":\"guidance\",\"taskId\":\"" + task.id() + "\",\"text\":\"Be brief\"}";
    feedback(guide)
        .andExpect(status().isAccepted())
        .andExpect(jsonPath("$.outcome").value("guided"));
    assertThat(new SubAgentConversations(mongo).messages(subAgent.id()).getLast())
        .satisfies(
            m -> {
              assertThat(m.role()).isEqualTo(SubAgentMessage.USER);
              assertThat(m.content()).isEqualTo("Be brief");
              assertThat(m.outbox()).hasSize(1);
            });
    assertThat(mongo.findById(subAgent.id(), SubAgent.class).status())
        .isEqualTo(SubAgentStatus.active);

    Stored.Started done =
        stored.startedTask(
            "chat-1", "Research", TaskStatus.success, SubAgentStatus.completed, "ok");
    feedback("{\"type\":\"guidance\",\"taskId\":\"" + done.task().id() + "\",\"text\":\"More\"}")
        .andExpect(status().isAccepted());
    assertThat(mongo.findById(done.subAgent().id(), SubAgent.class).status())
        .isEqualTo(SubAgentStatus.active);
    assertThat(mongo.findById(done.task().id(), Task.class).status()).isEqualTo(TaskStatus.running);

    Stored.Started failed =
        stored.startedTask("chat-1", "Research", TaskStatus.failed, SubAgentStatus.failed, null);
    feedback("{\"type\":\"guidance\",\"taskId\":\"" + failed.task().id() + "\",\"text\":\"x\"}")
        .andExpect(status().isConflict())
        .andExpect(
            jsonPath("$.detail")
                .value("task " + failed.task().id() + " has ended (failed); it cannot be guided"));
  }

  @Test
  void aCallAwaitingApprovalPastTheTimeoutIsRejectedWithTheReasonTimeout() {
    ToolCall old = awaiting("c1");

    Instant asked = old.createdAt();

    assertThat(approvals.rejectAwaitingSince(asked, 100)).as("not old enough").isZero();
    assertThat(approvals.rejectAwaitingSince(asked.plusSeconds(1), 100)).isEqualTo(1);

    assertThat(call(old).error())
        .isEqualTo("{\"error_type\":\"rejected\",\"message\":\"timeout\"}");
    assertThat(approvals.rejectAwaitingSince(asked.plusSeconds(1), 100)).isZero();
  }
}
