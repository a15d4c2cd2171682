package dev.agentrt.finalizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCompleted;
import dev.agentrt.events.TaskFailed;
import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.store.Usage;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.MongoCommands;
import dev.agentrt.testing.ScriptedModel;
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
 * The finalizer without a broker: given a task's outcome and the stored chat, expect this answer in
 * the chat with its event in the outbox, and these model calls.
 */
class FinalAnswersTest {

  private static final EventCodec CODEC = new EventCodec();
  private static final String CHAT = "chat-1";
  private static final Instant T0 = Instant.parse("2026-11-22T12:00:00Z");

  private static final MongoCommands COMMANDS = new MongoCommands();

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  private ScriptedModel model;
  private FinalAnswers answers;
  private Task task;

  @BeforeAll
  static void startMongo() {
    database = InMemoryMongo.start(COMMANDS);
    mongo = database.template();
  }

  @AfterAll
  static void stopMongo() {
    database.close();
  }

  @BeforeEach
  void storedChatAndTask() {
    database.clear();
    model = new ScriptedModel();
    answers =
        new FinalAnswers(
            mongo,
            new BulkWrites(mongo),
            model,
            CODEC,
            new FinalizerProperties(
                6, 3, Duration.ZERO, Duration.ofSeconds(5), Duration.ofSeconds(30)),
            new UsageCounter(mongo),
            new RunLedger(mongo));
    mongo.insert(new Chat(CHAT, "test", T0));
    mongo.insert(chatMessage("m-1", ChatMessage.USER, "Hello", 1));
    mongo.insert(chatMessage("m-2", ChatMessage.ASSISTANT, "Hi! What shall I research?", 2));
    mongo.insert(chatMessage("m-3", ChatMessage.USER, "Research Kafka", 3));
    task =
        mongo.insert(
            new Task(
                "task-1",
                CHAT,
                Task.TYPE_AGENT,
                "researcher",
                "Research Kafka",
                TaskStatus.success,
                "sub-1",
                "Kafka is a distributed log.",
                null,
                T0,
                T0,
                List.of()));
  }

  /**
   * Whether the answer is stored already is told by the chat's latest messages, which the model
   * reads anyway: one read of the chat's messages.
   */
  @Test
  void anAnswerWrittenForTheFirstTimeReadsTheChatOnce() {
    model.replies("Kafka is a distributed log.");
    COMMANDS.clear();

    answers.write(TaskOutcome.of(completed("Kafka is a distributed log.")));

    assertThat(COMMANDS.from(thread -> true))
        .as("the chat's latest messages, for the model and to find the answer stored")
        .filteredOn(("find " + Collections.CHAT_MESSAGES)::equals)
        .hasSize(1);
  }

  @Test
  void anAnswerStoredBeforeManyLaterMessagesIsStillStoredOnce() {
    model.replies("Kafka is a distributed log.", "Asked again.");
    TaskCompleted completed = completed("Kafka is a distributed log.");
    ChatMessage first = answers.write(TaskOutcome.of(completed));
    for (int i = 1; i <= 8; i++) {
      mongo.insert(
          new ChatMessage(
              "later-" + i,
              CHAT,
              ChatMessage.USER,
              "later " + i,
              null,
              first.createdAt().plusSeconds(i),
              List.of()));
    }

    ChatMessage again = answers.write(TaskOutcome.of(completed));

    assertThat(again).isEqualTo(first);
    assertThat(model.requests()).as("not among the latest messages: asked in vain").hasSize(2);
    assertThat(mongo.findById(CHAT, Chat.class).usage().turns()).isEqualTo(1);
  }

  @Test
  void turnsASuccessfulTaskIntoTheChatsAnswerThroughTheModel() {
    model.replies("Kafka is a distributed log, says kafka.md.");
    TaskCompleted completed = completed("Kafka is a distributed log.\nSources: kafka.md");

    ChatMessage answer = answers.write(TaskOutcome.of(completed));

    assertThat(answer.id()).isEqualTo(Ids.derived(completed.eventId(), "final-answer"));
    assertThat(answer.role()).isEqualTo("assistant");
    assertThat(answer.chatId()).isEqualTo(CHAT);
    assertThat(answer.taskId()).isEqualTo("task-1");
    assertThat(answer.content()).isEqualTo("Kafka is a distributed log, says kafka.md.");
    assertThat(mongo.findById(answer.id(), ChatMessage.class)).isEqualTo(answer);
    assertThat(event(answer.outbox()))
        .isEqualTo(
            new ChatMessageAdded(
                Ids.derived(answer.id(), "added"),
                answer.createdAt(),
                CHAT,
                answer.id(),
                "assistant",
                "task-1"));
    ModelRequest request = model.requests().getFirst();
    assertThat(request.purpose()).isEqualTo(ModelRequest.Purpose.FINAL_ANSWER);
    assertThat(request.tools()).isEmpty();
    assertThat(request.responseSchema()).isNull();
    assertThat(request.messages())
        .containsExactly(
            ModelMessage.system(FinalAnswers.INSTRUCTIONS),
            ModelMessage.user("Hello"),
            ModelMessage.assistant("Hi! What shall I research?", List.of()),
            ModelMessage.user("Research Kafka"),
            ModelMessage.user(
                """
                Agent: researcher
                Instruction: Research Kafka
                Outcome: success
                Result: Kafka is a distributed log.
                Sources: kafka.md"""));
  }

  @Test
  void tellsThePersonWhatFailedWhenTheTaskFailed() {
    model.replies("Sorry, I could not research Kafka: the model gave up.");
    TaskFailed failed = failed("the researcher took 10 steps without finishing");

    ChatMessage answer = answers.write(TaskOutcome.of(failed));

    assertThat(answer.content()).isEqualTo("Sorry, I could not research Kafka: the model gave up.");
    assertThat(answer.taskId()).isEqualTo("task-1");
    assertThat(model.requests().getFirst().messages().getLast().content())
        .isEqualTo(
            """
            Agent: researcher
            Instruction: Research Kafka
            Outcome: failed
            Error: the researcher took 10 steps without finishing""");
  }

  @Test
  void writesAPlainAnswerFromTheOutcomeWhenTheModelKeepsFailing() {
    model
        .fails(ScriptedModel.transientFailure())
        .fails(ScriptedModel.transientFailure())
        .fails(ScriptedModel.transientFailure());

    ChatMessage answer = answers.write(TaskOutcome.of(failed("the search index is unreachable")));

    assertThat(model.requests()).hasSize(3);
    assertThat(answer.content())
        .isEqualTo(
            "The researcher could not finish \"Research Kafka\": the search index is unreachable");
    assertThat(event(answer.outbox())).isInstanceOf(ChatMessageAdded.class);
  }

  @Test
  void writesTheResultItselfWhenTheModelFailsOnASuccessfulTask() {
    model.fails(ScriptedModel.permanentFailure());

    ChatMessage answer = answers.write(TaskOutcome.of(completed("Kafka is a distributed log.")));

    assertThat(model.requests()).hasSize(1);
    assertThat(answer.content()).isEqualTo("Kafka is a distributed log.");
  }

  @Test
  void aRedeliveredEventMakesOneAnswerAndOneModelCall() {
    model.replies("Kafka is a distributed log.");
    TaskCompleted completed = completed("Kafka is a distributed log.");

    ChatMessage first = answers.write(TaskOutcome.of(completed));
    ChatMessage again = answers.write(TaskOutcome.of(completed));

    assertThat(again).isEqualTo(first);
    assertThat(model.requests()).hasSize(1);
    assertThat(
            mongo.findAll(ChatMessage.class).stream()
                .filter(m -> "task-1".equals(m.taskId()))
                .count())
        .isEqualTo(1);
  }

  @Test
  void theModelSeesOnlyTheChatsLastFewMessages() {
    for (int i = 4; i <= 12; i++) {
      mongo.insert(chatMessage("m-" + i, ChatMessage.USER, "message " + i, i));
    }
    mongo.insert(
        new ChatMessage(
            "other", "other-chat", ChatMessage.USER, "not this chat", null, T0, List.of()));
    model.replies("Done.");

    answers.write(TaskOutcome.of(completed("A log.")));

    List<ModelMessage> messages = model.requests().getFirst().messages();
    assertThat(messages).hasSize(1 + 6 + 1);
    assertThat(messages.get(1)).isEqualTo(ModelMessage.user("message 7"));
    assertThat(messages.get(6)).isEqualTo(ModelMessage.user("message 12"));
  }

  @Test
  void asksTheTasksModelAndCountsTheAnswersTokensOnTheChatAndTheTaskOnce() {
    mongo.save(withModel(task, "task-model"));
    model.replies("Kafka is a distributed log.");
    TaskCompleted completed = completed("Kafka is a distributed log.");
    COMMANDS.clear();

    ChatMessage answer = answers.write(TaskOutcome.of(completed));
    ChatMessage again = answers.write(TaskOutcome.of(completed));

    assertThat(again).isEqualTo(answer);
    assertThat(model.requests()).extracting(ModelRequest::model).containsExactly("task-model");
    assertThat(answer.model()).isEqualTo("task-model");
    assertThat(answer.usage()).isEqualTo(new TurnUsage(10, 10));
    Usage once = new Usage(10, 10, 1, Map.of("task-model", new Usage.ModelTokens(10, 10, 1)));
    assertThat(mongo.findById(CHAT, Chat.class).usage()).isEqualTo(once);
    assertThat(mongo.findById("task-1", Task.class).usage()).isEqualTo(once);
    assertThat(mongo.findAll(RunEvent.class))
        .as("the answer, in the chat's ledger once")
        .extracting(RunEvent::type, RunEvent::seq)
        .containsExactly(tuple(RunEvent.MESSAGE, 1L));
    assertThat(COMMANDS.from(thread -> true))
        .as("the chat's sums in one update, whether the answer was stored before or not")
        .filteredOn(("update " + Collections.CHATS)::equals)
        .hasSize(1);
  }

  /** The chat's usage is then read as the chat's own plus its tasks': nothing goes to the chat. */
  @Test
  void theAnswerOfATaskThatKeepsItsUsageApartCountsOnTheTaskAlone() {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is("task-1")),
        new Update().set(Task.USAGE_APART, true),
        Task.class);
    model.replies("Kafka is a distributed log.");
    COMMANDS.clear();

    answers.write(TaskOutcome.of(completed("Kafka is a distributed log.")));

    assertThat(mongo.findById("task-1", Task.class).usage())
        .isEqualTo(new Usage(10, 10, 1, Map.of("(default)", new Usage.ModelTokens(10, 10, 1))));
    assertThat(mongo.findById(CHAT, Chat.class).usage()).isNull();
    assertThat(COMMANDS.from(thread -> true)).doesNotContain("update " + Collections.CHATS);
  }

  @Test
  void aTaskWithoutAModelIsAnsweredByTheDefaultModel() {
    model.replies("Done.");

    ChatMessage answer = answers.write(TaskOutcome.of(completed("A log.")));

    assertThat(model.requests().getFirst().model()).isNull();
    assertThat(answer.model()).isNull();
    assertThat(mongo.findById("task-1", Task.class).usage().turns()).isEqualTo(1);
  }

  @Test
  void anAnswerWrittenWithoutTheModelCountsNoTokens() {
    model.fails(ScriptedModel.permanentFailure());

    ChatMessage answer = answers.write(TaskOutcome.of(failed("the index is unreachable")));

    assertThat(answer.usage()).isNull();
    assertThat(mongo.findById(CHAT, Chat.class).usage()).isNull();
    assertThat(mongo.findById("task-1", Task.class).usage()).isNull();
  }

  private static Task withModel(Task t, String model) {
    return new Task(
        t.id(),
        t.chatId(),
        t.type(),
        t.agent(),
        t.instruction(),
        model,
        t.status(),
        t.subAgentId(),
        t.result(),
        t.error(),
        t.usage(),
        t.createdAt(),
        t.updatedAt(),
        t.outbox());
  }

  private static ChatMessage chatMessage(String id, String role, String content, int second) {
    return new ChatMessage(id, CHAT, role, content, null, T0.plusSeconds(second), List.of());
  }

  private static TaskCompleted completed(String result) {
    return new TaskCompleted("ev-completed", T0.plusSeconds(60), "task-1", CHAT, "sub-1", result);
  }

  private static TaskFailed failed(String error) {
    return new TaskFailed(
        "ev-failed", T0.plusSeconds(60), "task-1", CHAT, "sub-1", "step_limit_exceeded", error);
  }

  private static Object event(List<OutboxEntry> outbox) {
    assertThat(outbox).hasSize(1);
    OutboxEntry entry = outbox.getFirst();
    return CODEC.decode(entry.ceType(), entry.payload().getBytes(StandardCharsets.UTF_8));
  }
}
