package dev.agentrt.finalizer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.DelegationReplies;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.testing.InMemoryMongo;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
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
 * A child task's outcome becomes the tool message of the call that asked for it, once, whatever
 * events come and in which order, and never an answer in the chat.
 */
class DelegationResultsTest {

  private static final String CHAT = "chat-1";
  private static final String PARENT_TASK = "analyst-task";
  private static final String PARENT = "analyst-sub-agent";
  private static final String CHILD = "child-task";

  private static EmbeddedKafkaKraftBroker kafka;
  private static InMemoryMongo mongoServer;
  private static MongoTemplate mongo;
  private static SubAgentConversations conversations;
  private static DelegationResults results;

  @BeforeAll
  static void start() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1, Topics.SUB_AGENT_MESSAGES);
    kafka.afterPropertiesSet();
    mongoServer = InMemoryMongo.start();
    mongo = mongoServer.template();
    conversations = new SubAgentConversations(mongo);
    Outbox outbox =
        new Outbox(
            new EventPublisher(
                new KafkaTemplate<>(
                    new DefaultKafkaProducerFactory<>(
                        Map.of("bootstrap.servers", kafka.getBrokersAsString()),
                        new StringSerializer(),
                        new ByteArraySerializer())),
                "finalizer-test"),
            mongo);
    results = new DelegationResults(conversations, outbox, new EventCodec(), new RunLedger(mongo));
  }

  @AfterAll
  static void stop() {
    mongoServer.close();
    kafka.destroy();
  }

  @BeforeEach
  void anAnalystWaitingForItsResearcher() {
    mongoServer.clear();
    Instant now = Instant.now();
    mongo.insert(new Chat(CHAT, "test", now));
    mongo.insert(
        new SubAgent(
            PARENT, PARENT_TASK, CHAT, "analyst", SubAgentStatus.active, 0, null, now, now));
    mongo.insert(child(TaskStatus.success, "Kafka is a log.", "call-1", "call_0_0"));
  }

  @Test
  void aChildsResultBecomesItsCallersToolMessageOnceAndNoChatAnswer() {
    TaskOutcome completed = new TaskOutcome.Succeeded("e-1", CHILD, CHAT, "Kafka is a log.");

    assertThat(deliver(completed)).isTrue();
    assertThat(deliver(completed)).as("redelivered").isTrue();
    assertThat(deliver(new TaskOutcome.Succeeded("e-1-copy", CHILD, CHAT, "x"))).isTrue();

    List<SubAgentMessage> replies = conversations.messages(PARENT);
    assertThat(replies).hasSize(1);
    assertThat(replies.getFirst().role()).isEqualTo(SubAgentMessage.TOOL);
    assertThat(replies.getFirst().toolCallId()).isEqualTo("call_0_0");
    assertThat(replies.getFirst().content())
        .isEqualTo(DelegationReplies.result("researcher", CHILD, "Kafka is a log."));
    assertThat(mongo.findAll(ChatMessage.class)).isEmpty();
  }

  @Test
  void aFailedChildReachesItsCallerAsAToolError() {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(CHILD)),
        new Update().set("status", TaskStatus.failed).set("error", "the model failed"),
        Task.class);

    deliver(new TaskOutcome.Failed("e-2", CHILD, CHAT, "the model failed"));

    assertThat(conversations.messages(PARENT).getFirst().content())
        .contains("\"error_type\":\"agent_failed\"")
        .contains("the model failed")
        .contains("\"conversation_id\":\"" + CHILD + "\"");
  }

  @Test
  void aLateEventOfAnEarlierRunAnswersOnlyTheCurrentCallOnceItEnds() {
    deliver(new TaskOutcome.Succeeded("e-1", CHILD, CHAT, "Kafka is a log."));
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(CHILD)),
        new Update()
            .set("status", TaskStatus.running)
            .set("delegation.toolCallId", "call-2")
            .set("delegation.modelCallId", "call_1_0"),
        Task.class);

    deliver(new TaskOutcome.Succeeded("e-1", CHILD, CHAT, "Kafka is a log."));
    assertThat(conversations.messages(PARENT)).as("woken again: nothing yet").hasSize(1);

    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(CHILD)),
        new Update().set("status", TaskStatus.success).set("result", "It keeps records."),
        Task.class);
    deliver(new TaskOutcome.Succeeded("e-1", CHILD, CHAT, "Kafka is a log."));
    deliver(new TaskOutcome.Succeeded("e-3", CHILD, CHAT, "It keeps records."));

    assertThat(conversations.messages(PARENT))
        .extracting(SubAgentMessage::toolCallId, SubAgentMessage::content)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "call_0_0", DelegationReplies.result("researcher", CHILD, "Kafka is a log.")),
            org.assertj.core.groups.Tuple.tuple(
                "call_1_0", DelegationReplies.result("researcher", CHILD, "It keeps records.")));
  }

  @Test
  void aTaskTheOrchestratorStartedIsLeftToTheChatsAnswer() {
    Instant now = Instant.now();
    mongo.insert(
        new Task(
            "root",
            CHAT,
            Task.TYPE_AGENT,
            "researcher",
            "Research",
            null,
            TaskStatus.success,
            null,
            "r",
            null,
            null,
            now,
            now,
            List.of()));

    assertThat(deliver(new TaskOutcome.Succeeded("e-9", "root", CHAT, "r"))).isFalse();
  }

  /** Delivers the outcome as the finalizer does: with its task as stored now. */
  private static boolean deliver(TaskOutcome outcome) {
    return results.deliver(outcome, mongo.findById(outcome.taskId(), Task.class));
  }

  private static Task child(
      TaskStatus status, String result, String toolCallId, String modelCallId) {
    Instant now = Instant.now();
    return new Task(
        CHILD,
        CHAT,
        Task.TYPE_AGENT,
        "researcher",
        "Research Kafka",
        null,
        status,
        "child-sub-agent",
        result,
        null,
        null,
        now,
        now,
        List.of(),
        new Task.Delegation(PARENT_TASK, PARENT, PARENT_TASK, 1, toolCallId, modelCallId, null),
        now,
        now);
  }
}
