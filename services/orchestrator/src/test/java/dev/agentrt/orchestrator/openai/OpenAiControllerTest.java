package dev.agentrt.orchestrator.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.agentrt.events.EventCodec;
import dev.agentrt.orchestrator.chat.ChatAccess;
import dev.agentrt.orchestrator.chat.ChatMessageRate;
import dev.agentrt.orchestrator.chat.Chats;
import dev.agentrt.orchestrator.events.EventsProperties;
import dev.agentrt.orchestrator.events.StreamSlots;
import dev.agentrt.orchestrator.testing.SettableClock;
import dev.agentrt.orchestrator.testing.SignedIn;
import dev.agentrt.orchestrator.testing.TestModels;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Ids;
import dev.agentrt.store.Plan;
import dev.agentrt.store.PlanStatus;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.testing.InMemoryMongo;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAI-compatible API over HTTP (MockMvc, no server). The orchestrator is played by the
 * broker: publishing a person's message stores the chat's reply to it, as the pipeline would.
 */
class OpenAiControllerTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  /** The reply the "pipeline" stores for a person's message; null: none ever comes. */
  private Function<String, @Nullable String> replies = content -> "You said: " + content;

  /** What else the "pipeline" stores when a person's message is published, before its reply. */
  private Consumer<ChatMessage> alsoStored = question -> {};

  private final SettableClock clock = new SettableClock();
  private StreamSlots slots;
  private MockMvc http;

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
    SignedIn.asLocalUser();
    database.clear();
    EventPublisher replyingPipeline =
        new EventPublisher(null, "test") {
          @Override
          public CompletableFuture<?> send(OutboxEntry entry, Map<String, String> headers) {
            ChatMessage question =
                mongo.findOne(
                    Query.query(Criteria.where("role").is(ChatMessage.USER))
                        .with(Sort.by(Sort.Direction.DESC, "createdAt", "_id"))
                        .limit(1),
                    ChatMessage.class);
            alsoStored.accept(question);
            String reply = replies.apply(question.content());
            if (reply != null) {
              mongo.insert(
                  new ChatMessage(
                      Ids.derived(question.id(), "answer"),
                      question.chatId(),
                      ChatMessage.ASSISTANT,
                      reply,
                      null,
                      null,
                      new TurnUsage(11, 7),
                      question.createdAt().truncatedTo(ChronoUnit.MILLIS).plusMillis(1),
                      List.of()));
            }
            return CompletableFuture.completedFuture(null);
          }
        };
    Chats chats =
        new Chats(
            mongo,
            new BulkWrites(mongo),
            new Outbox(replyingPipeline, mongo),
            new EventCodec(),
            new RunLedger(mongo),
            new ChatMessageRate(mongo, 3, clock));
    Conversations conversations =
        new Conversations(mongo, Duration.ofMillis(300), Duration.ofMillis(10));
    EventsProperties events =
        new EventsProperties(
            Duration.ofMillis(10),
            Duration.ofSeconds(15),
            Duration.ofSeconds(2),
            Duration.ofMinutes(1),
            1,
            1000);
    slots = new StreamSlots(events);
    OpenAiController controller =
        new OpenAiController(
            chats,
            new ChatAccess(mongo),
            conversations,
            TestModels.named("offline", "fast"),
            new RunLedger(mongo),
            events,
            slots);
    http =
        MockMvcBuilders.standaloneSetup(controller).setControllerAdvice(new OpenAiErrors()).build();
  }

  // --- models --------------------------------------------------------------------------------

  @Test
  void listsTheOrchestratorAsTheOneModel() throws Exception {
    http.perform(get("/v1/models"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.object").value("list"))
        .andExpect(jsonPath("$.data.length()").value(1))
        .andExpect(jsonPath("$.data[0].id").value("agentrt"))
        .andExpect(jsonPath("$.data[0].object").value("model"))
        .andExpect(jsonPath("$.data[0].owned_by").value("agentrt"))
        .andExpect(jsonPath("$.data[0].created").isNumber());
  }

  // --- bad requests ---------------------------------------------------------------------------

  @Test
  void refusesRequestsWithoutAUsableLastUserMessageAndStoresNothing() throws Exception {
    refused("", null, "request body is missing");
    refused("{not json", null, "not valid JSON");
    refused("[]", null, "must be a JSON object");
    refused("{\"model\":\"agentrt\"}", "messages", "non-empty array");
    refused("{\"messages\":[]}", "messages", "non-empty array");
    refused(
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"yo\"}]}",
        "messages[1].role",
        "last message must be the user's");
    refused(
        "{\"messages\":[{\"role\":\"user\",\"content\":\"  \"}]}",
        "messages[0].content",
        "content");
    refused("{\"messages\":[{\"role\":\"user\"}]}", "messages[0].content", "content");
    refused("{\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}", "messages[0].role", "role");
    refused("{\"messages\":[{\"role\":\"user\",\"content\":42}]}", "messages[0].content", "string");
    refused(
        "{\"stream\":\"yes\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
        "stream",
        "stream");
    refused(
        "{\"model\":\"gpt-9\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
        "model",
        "'gpt-9' does not exist");

    assertThat(mongo.findAll(Chat.class)).isEmpty();
    assertThat(mongo.findAll(ChatMessage.class)).isEmpty();
  }

  private void refused(String body, @Nullable String param, String message) throws Exception {
    var result =
        http.perform(
                post("/v1/chat/completions").contentType(MediaType.APPLICATION_JSON).content(body))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error.type").value("invalid_request_error"))
            .andExpect(
                jsonPath("$.error.message").value(org.hamcrest.Matchers.containsString(message)));
    if (param == null) {
      result.andExpect(jsonPath("$.error.param").doesNotExist());
    } else {
      result.andExpect(jsonPath("$.error.param").value(param));
    }
  }

  @Test
  void refusesAnOversizeLastUserMessageWith413AndStoresNothing() throws Exception {
    String oversize = "x".repeat(CompletionRequest.MAX_CONTENT_LENGTH + 1);

    http.perform(completion(messages("user", oversize), false))
        .andExpect(status().isContentTooLarge())
        .andExpect(jsonPath("$.error.type").value("invalid_request_error"))
        .andExpect(jsonPath("$.error.param").value("messages[0].content"))
        .andExpect(jsonPath("$.error.code").value("message_too_long"));

    assertThat(mongo.findAll(ChatMessage.class)).isEmpty();
  }

  @Test
  void refusesAnUnknownChatIdWith404() throws Exception {
    http.perform(completion(messages("user", "hi"), false).header("X-Chat-Id", "no-such-chat"))
        .andExpect(status().isNotFound())
        .andExpect(jsonPath("$.error.type").value("invalid_request_error"))
        .andExpect(jsonPath("$.error.param").value("X-Chat-Id"))
        .andExpect(jsonPath("$.error.code").value("chat_not_found"));

    assertThat(mongo.findAll(ChatMessage.class)).isEmpty();
  }

  @Test
  void answers504WhenNoReplyArrivesInTime() throws Exception {
    replies = content -> null;

    http.perform(completion(messages("user", "hi"), false))
        .andExpect(status().isGatewayTimeout())
        .andExpect(header().exists("X-Chat-Id"))
        .andExpect(jsonPath("$.error.type").value("timeout"));
  }

  @Test
  void aWaitingRequestHoldsOneOfTheChatsStreamPlacesUntilItEnds() throws Exception {
    String chatId = chatIdOf(http.perform(completion(messages("user", "One"), false)));
    // The place the first request held is free again: one place per chat here.
    http.perform(completion(messages("user", "Two"), true).header("X-Chat-Id", chatId))
        .andExpect(status().isOk());

    try (StreamSlots.Slot held = slots.take(chatId)) {
      http.perform(completion(messages("user", "Three"), false).header("X-Chat-Id", chatId))
          .andExpect(status().isTooManyRequests())
          .andExpect(jsonPath("$.error.code").value("rate_limit_exceeded"))
          .andExpect(
              jsonPath("$.error.message")
                  .value(org.hamcrest.Matchers.containsString("max-streams-per-chat")));
    }
    assertThat(userMessages()).extracting(ChatMessage::content).containsExactly("One", "Two");
    http.perform(completion(messages("user", "Three"), false).header("X-Chat-Id", chatId))
        .andExpect(status().isOk());
  }

  // --- replies --------------------------------------------------------------------------------

  @Test
  void answersWithTheChatsReplyAsAChatCompletion() throws Exception {
    MockHttpServletResponse response =
        http.perform(completion(messages("system", "be brief", "user", "Hello"), false))
            .andExpect(status().isOk())
            .andExpect(header().exists("X-Chat-Id"))
            .andReturn()
            .getResponse();

    JsonNode body = JSON.readTree(response.getContentAsString(StandardCharsets.UTF_8));
    ChatMessage reply =
        mongo.findAll(ChatMessage.class).stream()
            .filter(m -> m.role().equals(ChatMessage.ASSISTANT))
            .findFirst()
            .orElseThrow();
    assertThat(body.path("id").asString()).isEqualTo("chatcmpl-" + reply.id());
    assertThat(body.path("object").asString()).isEqualTo("chat.completion");
    assertThat(body.path("created").asLong()).isEqualTo(reply.createdAt().getEpochSecond());
    assertThat(body.path("model").asString()).isEqualTo("agentrt");
    assertThat(body.path("chat_id").asString())
        .isEqualTo(response.getHeader("X-Chat-Id"))
        .isEqualTo(reply.chatId());
    JsonNode choice = body.path("choices").path(0);
    assertThat(choice.path("index").asInt()).isZero();
    assertThat(choice.path("message").path("role").asString()).isEqualTo("assistant");
    assertThat(choice.path("message").path("content").asString()).isEqualTo("You said: Hello");
    assertThat(choice.path("finish_reason").asString()).isEqualTo("stop");
    assertThat(body.path("usage").path("prompt_tokens").asLong()).isEqualTo(11);
    assertThat(body.path("usage").path("completion_tokens").asLong()).isEqualTo(7);
    assertThat(body.path("usage").path("total_tokens").asLong()).isEqualTo(18);
    Chat chat = mongo.findById(reply.chatId(), Chat.class);
    assertThat(chat.title()).isEqualTo("Hello");
  }

  @Test
  void theReplyIsTheAnswerOfTheTaskTheMessageStartedNotAnEarlierMessagesAnswer() throws Exception {
    replies = content -> null;
    alsoStored =
        question -> {
          Instant after = question.createdAt().truncatedTo(ChronoUnit.MILLIS);
          mongo.insert(
              assistant(
                  Ids.derived("an earlier message", "answer"),
                  question,
                  null,
                  "Late answer to the earlier message",
                  after.plusMillis(1)));
          mongo.insert(
              assistant(
                  Ids.fresh(),
                  question,
                  "another-task",
                  "Another task's answer",
                  after.plusMillis(2)));
          String taskId = Ids.derived(question.id(), "task");
          mongo.insert(
              new Task(
                  taskId,
                  question.chatId(),
                  "agent",
                  "researcher",
                  "Research Kafka",
                  TaskStatus.success,
                  null,
                  "done",
                  null,
                  after,
                  after,
                  List.of()));
          mongo.insert(
              assistant(
                  Ids.fresh(), question, taskId, "The researcher's answer", after.plusMillis(3)));
        };

    http.perform(completion(messages("user", "Research Kafka"), false))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.choices[0].message.content").value("The researcher's answer"));
  }

  @Test
  void theReplyToAMessageWhoseTaskFailedAndWasReroutedIsTheFallbackTasksAnswer() throws Exception {
    replies = content -> null;
    alsoStored =
        question -> {
          Instant after = question.createdAt().truncatedTo(ChronoUnit.MILLIS);
          String failedId = Ids.derived(question.id(), "task");
          mongo.insert(
              new Task(
                  failedId,
                  question.chatId(),
                  "agent",
                  "researcher",
                  "Research Kafka",
                  TaskStatus.failed,
                  null,
                  null,
                  "the model kept failing",
                  after,
                  after,
                  List.of()));
          String rerouteId = Task.rerouteId(failedId);
          mongo.insert(
              new Task(
                  rerouteId,
                  question.chatId(),
                  "agent",
                  "assistant",
                  "Research Kafka",
                  TaskStatus.success,
                  null,
                  "done",
                  null,
                  after,
                  after,
                  List.of()));
          mongo.insert(
              assistant(
                  Ids.fresh(), question, rerouteId, "The assistant's answer", after.plusMillis(2)));
        };

    http.perform(completion(messages("user", "Research Kafka"), false))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.choices[0].message.content").value("The assistant's answer"));
  }

  @Test
  void theReplyToAMessageThatStartedAPlanIsThePlansAnswer() throws Exception {
    replies = content -> null;
    alsoStored =
        question -> {
          Instant after = question.createdAt().truncatedTo(ChronoUnit.MILLIS);
          String planId = Ids.derived(question.id(), "plan");
          mongo.insert(assistant("plan-answer", question, null, "The report", after.plusMillis(2)));
          mongo.insert(
              new Plan(
                  planId,
                  question.chatId(),
                  question.id(),
                  question.content(),
                  null,
                  PlanStatus.success,
                  List.of(),
                  false,
                  "plan-answer",
                  null,
                  after,
                  after,
                  after,
                  null));
        };

    http.perform(completion(messages("user", "Write a report on Kafka and Redis"), false))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.choices[0].message.content").value("The report"));
  }

  private static ChatMessage assistant(
      String id, ChatMessage question, @Nullable String taskId, String content, Instant at) {
    return new ChatMessage(
        id, question.chatId(), ChatMessage.ASSISTANT, content, taskId, at, List.of());
  }

  @Test
  void aConfiguredModelNamedInTheRequestGoesOnThePersonsMessage() throws Exception {
    ObjectNode request = messages("user", "Hello");
    request.put("model", "fast");

    http.perform(completion(request, false)).andExpect(status().isOk());

    assertThat(userMessages()).extracting(ChatMessage::model).containsExactly("fast");
  }

  @Test
  void contentPartsAreJoined() throws Exception {
    ObjectNode request = JSON.createObjectNode();
    ObjectNode user = request.putArray("messages").addObject().put("role", "user");
    user.putArray("content")
        .add(JSON.createObjectNode().put("type", "text").put("text", "Hel"))
        .add(JSON.createObjectNode().put("type", "text").put("text", "lo"));

    http.perform(completion(request, false))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.choices[0].message.content").value("You said: Hello"));
  }

  // --- history → chat -------------------------------------------------------------------------

  @Test
  void aClientResendingTheHistoryContinuesTheSameChat() throws Exception {
    String first = chatIdOf(http.perform(completion(messages("user", "Research"), false)));
    String second =
        chatIdOf(
            http.perform(
                completion(
                    messages(
                        "system",
                        "ignored",
                        "user",
                        "Research",
                        "assistant",
                        "You said: Research",
                        "user",
                        "Kafka"),
                    false)));
    String third =
        chatIdOf(
            http.perform(
                completion(
                    messages(
                        "user",
                        "Research",
                        "assistant",
                        "You said: Research",
                        "user",
                        "Kafka",
                        "assistant",
                        "You said: Kafka",
                        "user",
                        "Thanks"),
                    false)));

    assertThat(second).isEqualTo(first);
    assertThat(third).isEqualTo(first);
    assertThat(mongo.findAll(Chat.class)).hasSize(1);
    assertThat(userMessages())
        .extracting(ChatMessage::content)
        .containsExactly("Research", "Kafka", "Thanks");
  }

  @Test
  void anotherUserResendingTheSameHistoryGetsAChatOfTheirOwn() throws Exception {
    SignedIn.as("alice");
    String alices = chatIdOf(http.perform(completion(messages("user", "Research"), false)));
    var continued =
        messages("user", "Research", "assistant", "You said: Research", "user", "Kafka");

    SignedIn.as("bob");
    String bobs = chatIdOf(http.perform(completion(continued, false)));
    SignedIn.as("alice");
    String alicesAgain = chatIdOf(http.perform(completion(continued, false)));

    assertThat(bobs).isNotEqualTo(alices);
    assertThat(alicesAgain).isEqualTo(alices);
    assertThat(mongo.findById(bobs, Chat.class).owner()).isEqualTo("bob");
  }

  @Test
  void anotherUsersChatIdIsAnUnknownChat() throws Exception {
    SignedIn.as("alice");
    String alices = chatIdOf(http.perform(completion(messages("user", "Research"), false)));

    SignedIn.as("bob");
    http.perform(completion(messages("user", "Kafka"), false).header("X-Chat-Id", alices))
        .andExpect(status().isNotFound())
        .andExpect(jsonPath("$.error.code").value("chat_not_found"));
    assertThat(userMessages()).extracting(ChatMessage::content).containsExactly("Research");
  }

  @Test
  void aHistoryNoChatHasStartsANewChat() throws Exception {
    String first = chatIdOf(http.perform(completion(messages("user", "Research"), false)));

    String edited =
        chatIdOf(
            http.perform(
                completion(
                    messages("user", "Research", "assistant", "something else", "user", "Kafka"),
                    false)));
    String fresh = chatIdOf(http.perform(completion(messages("user", "Research"), false)));

    assertThat(edited).isNotEqualTo(first);
    assertThat(fresh).isNotEqualTo(first).isNotEqualTo(edited);
    assertThat(mongo.findAll(Chat.class)).hasSize(3);
  }

  @Test
  void theChatIdHeaderWinsOverTheHistory() throws Exception {
    String first = chatIdOf(http.perform(completion(messages("user", "One"), false)));
    String other = chatIdOf(http.perform(completion(messages("user", "Two"), false)));

    String continued =
        chatIdOf(
            http.perform(
                completion(
                        messages("user", "One", "assistant", "You said: One", "user", "Three"),
                        false)
                    .header("X-Chat-Id", other)));
    String afterHeader =
        chatIdOf(
            http.perform(
                completion(
                    messages(
                        "user",
                        "Two",
                        "assistant",
                        "You said: Two",
                        "user",
                        "Three",
                        "assistant",
                        "You said: Three",
                        "user",
                        "Four"),
                    false)));

    assertThat(continued).isEqualTo(other).isNotEqualTo(first);
    assertThat(afterHeader)
        .as("a reply to a request with the header is remembered too")
        .isEqualTo(other);
  }

  // --- streaming ------------------------------------------------------------------------------

  @Test
  void streamsTheReplyAsChunksEndingWithDone() throws Exception {
    String content = "x".repeat(150) + " — the end";
    replies =
        question -> {
          String chatId =
              mongo
                  .findOne(
                      org.springframework.data.mongodb.core.query.Query.query(
                          org.springframework.data.mongodb.core.query.Criteria.where("content")
                              .is(question)),
                      ChatMessage.class)
                  .chatId();
          new RunLedger(mongo)
              .append(
                  chatId,
                  "handoff/t",
                  RunEvent.HANDOFF,
                  "t",
                  null,
                  "researcher",
                  RunLedger.data("agent", "researcher", "task", "Research Kafka"));
          return content;
        };

    MockHttpServletResponse response =
        http.perform(completion(messages("user", "Hello"), true))
            .andExpect(status().isOk())
            .andReturn()
            .getResponse();

    assertThat(response.getContentType()).startsWith("text/event-stream");
    String chatId = response.getHeader("X-Chat-Id");
    assertThat(chatId).isNotBlank();
    String stream = response.getContentAsString(StandardCharsets.UTF_8);
    assertThat(stream).endsWith("data: [DONE]\n\n");
    List<JsonNode> chunks = new ArrayList<>();
    for (String event : stream.split("\n\n")) {
      assertThat(event).startsWith("data: ");
      if (!event.equals("data: [DONE]")) {
        chunks.add(JSON.readTree(event.substring("data: ".length())));
      }
    }
    assertThat(chunks).hasSizeGreaterThan(3);
    assertThat(chunks)
        .allSatisfy(
            c -> {
              assertThat(c.path("object").asString()).isEqualTo("chat.completion.chunk");
              assertThat(c.path("model").asString()).isEqualTo("agentrt");
              assertThat(c.path("chat_id").asString()).isEqualTo(chatId);
              assertThat(c.path("id").asString())
                  .isEqualTo(chunks.getFirst().path("id").asString());
            });
    assertThat(chunks.getFirst().path("choices").path(0).path("delta").path("role").asString())
        .isEqualTo("assistant");
    assertThat(chunks.getLast().path("choices").path(0).path("finish_reason").asString())
        .isEqualTo("stop");
    StringBuilder deltas = new StringBuilder();
    StringBuilder reasoning = new StringBuilder();
    for (JsonNode chunk : chunks) {
      JsonNode delta = chunk.path("choices").path(0).path("delta");
      deltas.append(delta.path("content").asString(""));
      reasoning.append(delta.path("reasoning_content").asString(""));
    }
    assertThat(deltas.toString()).isEqualTo(content);
    assertThat(reasoning.toString()).isEqualTo("Handing over to the researcher: Research Kafka\n");
    assertThat(chunks)
        .filteredOn(c -> c.has("agentrt_event"))
        .singleElement()
        .satisfies(
            c -> assertThat(c.path("agentrt_event").path("type").asString()).isEqualTo("handoff"));
  }

  // --- helpers --------------------------------------------------------------------------------

  private static ObjectNode messages(String... roleAndContent) {
    ObjectNode request = JSON.createObjectNode().put("model", "agentrt");
    ArrayNode messages = request.putArray("messages");
    for (int i = 0; i < roleAndContent.length; i += 2) {
      messages.addObject().put("role", roleAndContent[i]).put("content", roleAndContent[i + 1]);
    }
    return request;
  }

  private static MockHttpServletRequestBuilder completion(ObjectNode request, boolean stream) {
    if (stream) {
      request.put("stream", true);
    }
    return post("/v1/chat/completions")
        .contentType(MediaType.APPLICATION_JSON)
        .content(JSON.writeValueAsString(request));
  }

  private static String chatIdOf(org.springframework.test.web.servlet.ResultActions result)
      throws Exception {
    MockHttpServletResponse response = result.andExpect(status().isOk()).andReturn().getResponse();
    JsonNode body = JSON.readTree(response.getContentAsString(StandardCharsets.UTF_8));
    assertThat(body.path("chat_id").asString()).isEqualTo(response.getHeader("X-Chat-Id"));
    return body.path("chat_id").asString();
  }

  private static List<ChatMessage> userMessages() {
    return mongo.find(
        Query.query(Criteria.where("role").is(ChatMessage.USER)).with(Sort.by("createdAt", "_id")),
        ChatMessage.class);
  }
}
