package dev.agentrt.orchestrator.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.agentrt.events.EventCodec;
import dev.agentrt.orchestrator.models.Pricing;
import dev.agentrt.orchestrator.testing.SettableClock;
import dev.agentrt.orchestrator.testing.SignedIn;
import dev.agentrt.orchestrator.testing.TestModels;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.InMemoryMongo;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/**
 * The chat API over HTTP (MockMvc, no server): a model named for a chat or a message must be
 * configured, and what the chats' and tasks' model turns used is readable, with its cost.
 */
class ChatControllerTest {

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  private final SettableClock clock = new SettableClock();
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
    database.clear();
    SignedIn.asLocalUser();
    EventPublisher noBroker =
        new EventPublisher(null, "test") {
          @Override
          public CompletableFuture<?> send(OutboxEntry entry, Map<String, String> headers) {
            return CompletableFuture.failedFuture(new IllegalStateException("no broker"));
          }
        };
    var models = TestModels.named("offline", "fast");
    Pricing pricing =
        new Pricing(
            Map.of("fast", new Pricing.Price(new BigDecimal("0.15"), new BigDecimal("0.60"))),
            models);
    ChatController controller =
        new ChatController(
            new Chats(
                mongo,
                new BulkWrites(mongo),
                new Outbox(noBroker, mongo),
                new EventCodec(),
                new RunLedger(mongo),
                new ChatMessageRate(mongo, 2, clock)),
            new ChatAccess(mongo),
            new ChatTasks(mongo),
            models,
            pricing);
    http = MockMvcBuilders.standaloneSetup(controller).setControllerAdvice(new ApiErrors()).build();
  }

  @Test
  void refusesAChatWithAnUnknownModelNamingTheModelsThereAre() throws Exception {
    http.perform(
            post("/api/chats")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"title\":\"t\",\"model\":\"gpt-9\"}"))
        .andExpect(status().isBadRequest())
        .andExpect(jsonPath("$.status").value(400))
        .andExpect(
            jsonPath("$.detail").value("unknown model 'gpt-9'; known models: [fast, offline]"));

    assertThat(mongo.findAll(Chat.class)).isEmpty();
  }

  @Test
  void refusesAMessageWithAnUnknownModelAndStoresNothing() throws Exception {
    mongo.insert(new Chat("chat-1", "t", Instant.now()));

    http.perform(
            post("/api/chats/chat-1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"content\":\"Research Kafka\",\"model\":\"gpt-9\"}"))
        .andExpect(status().isBadRequest())
        .andExpect(
            jsonPath("$.detail").value("unknown model 'gpt-9'; known models: [fast, offline]"));

    assertThat(mongo.findAll(ChatMessage.class)).isEmpty();
  }

  @Test
  void refusesAnOversizeMessageWith413AndStoresNothing() throws Exception {
    mongo.insert(new Chat("chat-1", "t", Instant.now()));
    String longest = "x".repeat(ChatController.MAX_CONTENT_LENGTH);

    http.perform(
            post("/api/chats/chat-1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"content\":\"" + longest + "y\"}"))
        .andExpect(status().isContentTooLarge())
        .andExpect(jsonPath("$.detail").value("content is longer than 32000 characters"));
    assertThat(mongo.findAll(ChatMessage.class)).isEmpty();

    http.perform(
            post("/api/chats/chat-1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"content\":\"" + longest + "\"}"))
        .andExpect(status().isAccepted());
    assertThat(mongo.findAll(ChatMessage.class)).hasSize(1);
  }

  @Test
  void refusesAMessageOverTheChatsLimitPerMinuteWith429AndStoresNothing() throws Exception {
    mongo.insert(new Chat("chat-1", "t", Instant.now()));
    for (String content : List.of("one", "two")) {
      http.perform(
              post("/api/chats/chat-1/messages")
                  .contentType(MediaType.APPLICATION_JSON)
                  .content("{\"content\":\"" + content + "\"}"))
          .andExpect(status().isAccepted());
    }
    clock.advance(Duration.ofSeconds(15));

    http.perform(
            post("/api/chats/chat-1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"content\":\"three\"}"))
        .andExpect(status().isTooManyRequests())
        .andExpect(header().string("Retry-After", "45"))
        .andExpect(jsonPath("$.status").value(429))
        .andExpect(
            jsonPath("$.detail")
                .value(
                    "chat chat-1 has had 2 messages in the last minute, the most it takes"
                        + " (agentrt.orchestrator.max-messages-per-chat-per-minute); try again in"
                        + " 45 s"));
    assertThat(mongo.findAll(ChatMessage.class))
        .extracting(ChatMessage::content)
        .containsExactly("one", "two");
  }

  @Test
  void storesTheModelChosenForTheChatAndForAMessage() throws Exception {
    String body =
        http.perform(
                post("/api/chats")
                    .contentType(MediaType.APPLICATION_JSON)
                    .content("{\"title\":\"t\",\"model\":\"fast\"}"))
            .andExpect(status().isCreated())
            .andReturn()
            .getResponse()
            .getContentAsString();
    String chatId = body.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");

    http.perform(
            post("/api/chats/" + chatId + "/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"content\":\"Research Kafka\",\"model\":\"offline\"}"))
        .andExpect(status().isAccepted());

    assertThat(mongo.findById(chatId, Chat.class).model()).isEqualTo("fast");
    assertThat(mongo.findAll(ChatMessage.class))
        .singleElement()
        .extracting(ChatMessage::model)
        .isEqualTo("offline");
    http.perform(get("/api/chats/" + chatId))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.model").value("fast"))
        .andExpect(jsonPath("$.usage.promptTokens").value(0))
        .andExpect(jsonPath("$.usage.turns").value(0));
    http.perform(get("/api/chats/" + chatId + "/messages"))
        .andExpect(jsonPath("$[0].model").value("offline"));
  }

  @Test
  void showsTheChatsAndTheTasksUsageWithTheirCost() throws Exception {
    mongo.insert(new Chat("chat-1", "t", "fast", Instant.now(), null, null, null));
    mongo.insert(
        new Task(
            "task-1",
            "chat-1",
            Task.TYPE_AGENT,
            "researcher",
            "Research Kafka",
            TaskStatus.success,
            "sub-1",
            "A log.",
            null,
            Instant.now(),
            Instant.now(),
            List.of()));
    UsageCounter usage = new UsageCounter(mongo);
    usage.add(Chat.class, "chat-1", "fast", new TurnUsage(1_000, 100), 1);
    usage.add(Chat.class, "chat-1", "fast", new TurnUsage(3_000, 400), 2);
    usage.add(Task.class, "task-1", "fast", new TurnUsage(3_000, 400), 2);

    http.perform(get("/api/chats"))
        .andExpect(jsonPath("$[0].usage.promptTokens").value(4_000))
        .andExpect(jsonPath("$[0].usage.completionTokens").value(500))
        .andExpect(jsonPath("$[0].usage.turns").value(3))
        .andExpect(jsonPath("$[0].usage.costUsd").value(0.0009));
    http.perform(get("/api/chats/chat-1")).andExpect(jsonPath("$.usage.costUsd").value(0.0009));
    http.perform(get("/api/chats/chat-1/tasks"))
        .andExpect(jsonPath("$[0].usage.promptTokens").value(3_000))
        .andExpect(jsonPath("$[0].usage.turns").value(2))
        .andExpect(jsonPath("$[0].usage.costUsd").value(0.00069));
  }

  /**
   * A task that keeps its usage apart (all those started since tasks did) is summed into its chat's
   * when read; one that does not is in the chat's own sums already, and is not added again.
   */
  @Test
  void aChatsUsageIsItsOwnPlusThatOfItsTasksThatKeepTheirsApart() throws Exception {
    mongo.insert(new Chat("chat-1", "t", "fast", Instant.now(), null, null, null));
    mongo.insert(new Chat("chat-2", "u", "fast", Instant.now(), null, null, null));
    UsageCounter usage = new UsageCounter(mongo);
    usage.add(Chat.class, "chat-1", "fast", new TurnUsage(1_000, 100), 1); // a decision
    usage.add(Chat.class, "chat-1", "fast", new TurnUsage(3_000, 400), 2); // the legacy task's
    usage.add(Task.class, task("legacy", "chat-1", null), "fast", new TurnUsage(3_000, 400), 2);
    usage.add(Task.class, task("apart", "chat-1", true), "fast", new TurnUsage(500, 50), 1);
    usage.add(Task.class, task("other", "chat-2", true), null, new TurnUsage(7, 3), 1);

    http.perform(get("/api/chats/chat-1"))
        .andExpect(jsonPath("$.usage.promptTokens").value(4_500))
        .andExpect(jsonPath("$.usage.completionTokens").value(550))
        .andExpect(jsonPath("$.usage.turns").value(4));
    http.perform(get("/api/chats"))
        .andExpect(jsonPath("$[?(@.id == 'chat-1')].usage.turns").value(4))
        .andExpect(jsonPath("$[?(@.id == 'chat-2')].usage.promptTokens").value(7))
        .andExpect(jsonPath("$[?(@.id == 'chat-2')].usage.turns").value(1));
  }

  private static String task(String id, String chatId, @Nullable Boolean usageApart) {
    Instant now = Instant.now();
    return mongo
        .insert(
            new Task(
                id,
                chatId,
                Task.TYPE_AGENT,
                "researcher",
                "Research Kafka",
                null,
                TaskStatus.success,
                "sub-" + id,
                "A log.",
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
                usageApart))
        .id();
  }

  @Test
  void showsHowEachTaskWasRouted() throws Exception {
    mongo.insert(new Chat("chat-1", "t", null, Instant.now(), null, null, null));
    mongo.insert(
        new Task(
            "task-1",
            "chat-1",
            Task.TYPE_AGENT,
            "assistant",
            "Sing",
            null,
            TaskStatus.created,
            null,
            null,
            null,
            null,
            Instant.now(),
            Instant.now(),
            List.of(),
            null,
            null,
            null,
            new Task.Routing(0.3, "Not sure who sings.", true)));

    http.perform(get("/api/chats/chat-1/tasks"))
        .andExpect(jsonPath("$[0].routing.confidence").value(0.3))
        .andExpect(jsonPath("$[0].routing.reason").value("Not sure who sings."))
        .andExpect(jsonPath("$[0].routing.fallback").value(true));
  }

  @Test
  void showsWhyATaskFailed() throws Exception {
    mongo.insert(new Chat("chat-1", "t", null, Instant.now(), null, null, null));
    mongo.insert(
        new Task(
            "task-1",
            "chat-1",
            Task.TYPE_AGENT,
            "researcher",
            "Research Kafka",
            null,
            TaskStatus.failed,
            null,
            null,
            "Stopped by the token budget: 60 of 50 tokens used.",
            null,
            Instant.now(),
            Instant.now(),
            List.of(),
            null,
            null,
            null,
            null,
            "budget_exceeded"));

    http.perform(get("/api/chats/chat-1/tasks"))
        .andExpect(jsonPath("$[0].status").value("failed"))
        .andExpect(jsonPath("$[0].failureReason").value("budget_exceeded"));
  }
}
