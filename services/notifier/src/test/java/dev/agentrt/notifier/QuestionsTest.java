package dev.agentrt.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskWaiting;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Ids;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.testing.InMemoryMongo;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

/** The notifier without a broker: a waiting task's question as a message in its chat. */
class QuestionsTest {

  private static final EventCodec CODEC = new EventCodec();
  private static final Instant T0 = Instant.parse("2026-11-22T12:00:00Z");
  private static final TaskWaiting WAITING =
      new TaskWaiting("ev-waiting", T0, "task-1", "chat-1", "sub-1", "What should I research?");

  private static InMemoryMongo database;
  private static MongoTemplate mongo;
  private static BulkWrites writes;

  private Questions questions;

  @BeforeAll
  static void startMongo() {
    database = InMemoryMongo.start();
    mongo = database.template();
    writes = new BulkWrites(mongo);
  }

  @AfterAll
  static void stopMongo() {
    writes.close();
    database.close();
  }

  @BeforeEach
  void storedTask() {
    database.clear();
    questions = new Questions(mongo, writes, CODEC);
    mongo.insert(
        new Task(
            "task-1",
            "chat-1",
            Task.TYPE_AGENT,
            "researcher",
            "Research it",
            TaskStatus.waiting,
            "sub-1",
            null,
            null,
            T0,
            T0,
            List.of()));
  }

  @Test
  void postsTheQuestionInTheChatNamingTheAgentAndLinkedToTheTask() {
    ChatMessage question = questions.post(WAITING);

    assertThat(question.id()).isEqualTo(Ids.derived("ev-waiting", "question"));
    assertThat(question.content())
        .isEqualTo("The Researcher needs more information: What should I research?");
    assertThat(question.role()).isEqualTo("assistant");
    assertThat(question.chatId()).isEqualTo("chat-1");
    assertThat(question.taskId()).isEqualTo("task-1");
    assertThat(mongo.findById(question.id(), ChatMessage.class)).isEqualTo(question);
    assertThat(question.outbox()).hasSize(1);
    OutboxEntry entry = question.outbox().getFirst();
    assertThat(CODEC.decode(entry.ceType(), entry.payload().getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(
            new ChatMessageAdded(
                Ids.derived(question.id(), "added"),
                question.createdAt(),
                "chat-1",
                question.id(),
                "assistant",
                "task-1"));
  }

  @Test
  void aRedeliveredEventPostsTheQuestionOnce() {
    ChatMessage first = questions.post(WAITING);
    ChatMessage again = questions.post(WAITING);

    assertThat(again).isEqualTo(first);
    assertThat(mongo.findAll(ChatMessage.class)).hasSize(1);
  }

  @Test
  void anApprovalRequestNamesTheAgentTheToolAndItsArgumentsAndLinksTheCall() {
    ChatMessage request =
        questions.post(
            TaskWaiting.approval(
                "ev-approval",
                T0,
                "task-1",
                "chat-1",
                "sub-1",
                "call-1",
                "write_note",
                "{\"title\":\"t\",\"content\":\"c\"}"));

    assertThat(request.content())
        .isEqualTo(
            "The Researcher asks to run write_note with {\"title\":\"t\",\"content\":\"c\"}."
                + " Approve or reject it.");
    assertThat(request.taskId()).isEqualTo("task-1");
    assertThat(request.toolCallId()).isEqualTo("call-1");
    assertThat(mongo.findById(request.id(), ChatMessage.class)).isEqualTo(request);
  }

  @Test
  void longArgumentsAreCutInTheRequestWhichSaysWhereAllOfThemAre() {
    String arguments = "{\"content\":\"" + "x".repeat(100_000) + "\"}";

    String text = Questions.approvalText("scribe", null, "write_note", arguments, "task-1");

    assertThat(text)
        .startsWith("The Scribe asks to run write_note with {\"content\":\"xxx")
        .endsWith(
            "… (cut at 2000 characters; all of them: GET /api/tasks/task-1). Approve or reject it.")
        .hasSizeLessThan(2200);
  }

  @Test
  void capitalisesTheAgentsName() {
    assertThat(Questions.text("code-reviewer", " Which file? "))
        .isEqualTo("The Code-reviewer needs more information: Which file?");
  }

  @Test
  void aChildsQuestionSaysWhoItWorksFor() {
    assertThat(Questions.text("researcher", "analyst", "What should I research?"))
        .isEqualTo(
            "The Researcher (working for the Analyst) needs more information: What should I"
                + " research?");
  }
}
