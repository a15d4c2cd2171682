package dev.agentrt.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskWaiting;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.testing.BrokerRecords;
import dev.agentrt.testing.InMemoryMongo;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The sweep that asks the questions whose {@code TaskWaiting} was lost, on a real MongoDB-protocol
 * server and a real broker: the event is never delivered, the sweep asks once, and the event coming
 * late asks nothing more.
 */
class UnaskedQuestionSweepTest {

  private static EmbeddedKafkaKraftBroker kafka;
  private static InMemoryMongo database;
  private static MongoTemplate mongo;
  private static TaskWaitingListener listener;
  private static UnaskedQuestionSweep sweep;

  @BeforeAll
  static void startInfrastructure() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1, Topics.CHAT_MESSAGES);
    kafka.afterPropertiesSet();
    database = InMemoryMongo.start();
    mongo = database.template();
    KafkaTemplate<String, byte[]> template =
        new KafkaTemplate<>(
            new DefaultKafkaProducerFactory<>(
                Map.of("bootstrap.servers", kafka.getBrokersAsString()),
                new StringSerializer(),
                new ByteArraySerializer()));
    EventCodec codec = new EventCodec();
    listener =
        new TaskWaitingListener(
            new IncomingEvents(codec),
            new Questions(mongo, new BulkWrites(mongo), codec),
            new Outbox(new EventPublisher(template, "notifier-test"), mongo),
            new RunLedger(mongo));
    sweep =
        new UnaskedQuestionSweep(
            mongo,
            listener,
            new NotifierProperties(Duration.ofSeconds(10), Duration.ofSeconds(10)));
  }

  @AfterAll
  static void stopInfrastructure() {
    database.close();
    kafka.destroy();
  }

  @Test
  void aQuestionWhoseEventWasLostIsAskedOnceAndTheLateEventAsksNothingMore() {
    Instant longAgo = Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.MILLIS);
    Task task = waitingTask(longAgo);
    SubAgentMessage asking =
        assistantMessage(
            task,
            3,
            List.of(new RequestedToolCall("call-1", "ask_user", "{\"question\":\"Which?\"}")));
    // what agent-loop's OutcomeRecorder published, and the notifier never received
    TaskWaiting lost =
        new TaskWaiting(
            Ids.derived(asking.id(), "waiting"),
            longAgo,
            task.id(),
            task.chatId(),
            task.subAgentId(),
            "Which?");

    sweep.sweep();
    sweep.sweep();

    assertAskedOnce(task, lost);

    listener.ask(lost);

    assertAskedOnce(task, lost);
  }

  @Test
  void anApprovalRequestWhoseEventWasLostIsPostedOnceLinkedToItsCall() {
    Instant longAgo = Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.MILLIS);
    Task task = waitingTask(longAgo);
    mongo.insert(
        new dev.agentrt.store.ToolCall(
            "tc-1",
            task.subAgentId(),
            task.id(),
            task.chatId(),
            "researcher",
            "call-1",
            "write_note",
            "{\"title\":\"t\"}",
            dev.agentrt.store.ToolCallStatus.awaiting_approval,
            null,
            null,
            null,
            null,
            longAgo,
            longAgo,
            List.of()));

    sweep.sweep();
    sweep.sweep();

    assertThat(questionsOf(task))
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.toolCallId()).isEqualTo("tc-1");
              assertThat(q.content())
                  .isEqualTo(
                      "The Researcher asks to run write_note with {\"title\":\"t\"}. Approve or"
                          + " reject it.");
            });
  }

  @Test
  void aTaskWaitingWithinItsGraceOrWhoseLastAnswerIsNoQuestionIsLeftAlone() {
    Task fresh = waitingTask(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    assistantMessage(
        fresh, 1, List.of(new RequestedToolCall("call-1", "ask_user", "{\"question\":\"Hm?\"}")));
    Task notAsking = waitingTask(Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.MILLIS));
    assistantMessage(notAsking, 1, List.of());

    sweep.sweep();

    assertThat(questionsOf(fresh)).isEmpty();
    assertThat(questionsOf(notAsking)).isEmpty();
  }

  private static void assertAskedOnce(Task task, TaskWaiting event) {
    assertThat(questionsOf(task))
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.id()).isEqualTo(Ids.derived(event.eventId(), Questions.PURPOSE));
              assertThat(q.content()).isEqualTo("The Researcher needs more information: Which?");
            });
    assertThat(
            BrokerRecords.withKey(kafka.getBrokersAsString(), Topics.CHAT_MESSAGES, task.chatId()))
        .as("the question announced once")
        .hasSize(1);
  }

  private static List<ChatMessage> questionsOf(Task task) {
    return mongo.find(Query.query(Criteria.where("taskId").is(task.id())), ChatMessage.class);
  }

  private static Task waitingTask(Instant at) {
    String id = Ids.fresh();
    return mongo.insert(
        new Task(
            id,
            Ids.fresh(),
            Task.TYPE_AGENT,
            "researcher",
            "Research Kafka",
            TaskStatus.waiting,
            Ids.derived(id, "sub-agent"),
            null,
            null,
            at,
            at,
            List.of()));
  }

  private static SubAgentMessage assistantMessage(
      Task task, long seq, List<RequestedToolCall> calls) {
    return mongo.insert(
        new SubAgentMessage(
            Ids.derived(task.subAgentId(), "answer-" + seq),
            task.subAgentId(),
            task.id(),
            task.chatId(),
            seq,
            SubAgentMessage.ASSISTANT,
            null,
            calls,
            null,
            null,
            null,
            task.updatedAt(),
            List.of()));
  }
}
