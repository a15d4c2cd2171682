package dev.agentrt.finalizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskFailed;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.LaterUpdates;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskCancellation;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.InMemoryMongo;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A task that failed has its running descendants cancelled as the cancel API cancels them, so none
 * calls the model for a dead tree; its ended children stay as they are.
 */
class TaskOutcomeListenerTest {

  private static final String CHAT = "chat-1";

  private static EmbeddedKafkaKraftBroker kafka;
  private static InMemoryMongo mongoServer;
  private static MongoTemplate mongo;
  private static ExecutorService writers;
  private static LaterUpdates later;
  private static TaskOutcomeListener listener;

  @BeforeAll
  static void start() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1, Topics.TASKS, Topics.SUB_AGENT_MESSAGES);
    kafka.afterPropertiesSet();
    mongoServer = InMemoryMongo.start();
    mongo = mongoServer.template();
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
    RunLedger ledger = new RunLedger(mongo);
    DelegationResults results =
        new DelegationResults(new SubAgentConversations(mongo), outbox, new EventCodec(), ledger);
    writers = Executors.newVirtualThreadPerTaskExecutor();
    later = new LaterUpdates(new BulkWrites(mongo), "later-updates", Duration.ofMillis(100));
    PendingAnswers pending =
        new PendingAnswers(
            mongo,
            new FinalAnswers(
                mongo,
                new BulkWrites(mongo),
                request -> {
                  throw new AssertionError("a child's outcome is no answer in the chat");
                },
                new EventCodec(),
                new FinalizerProperties(
                    6, 1, Duration.ZERO, Duration.ofSeconds(30), Duration.ofSeconds(60)),
                new UsageCounter(mongo),
                new RunLedger(mongo)),
            results::deliver,
            answer -> {},
            writers,
            new LeaseProperties(Duration.ofSeconds(20), Duration.ofSeconds(5)),
            later);
    listener =
        new TaskOutcomeListener(
            new IncomingEvents(new EventCodec()),
            pending,
            new TaskCancellation(mongo, outbox, new EventCodec(), ledger),
            ledger);
  }

  @AfterAll
  static void stop() {
    writers.shutdownNow();
    later.close();
    mongoServer.close();
    kafka.destroy();
  }

  @Test
  void aTaskThatFailedHasItsRunningDescendantsCancelledOnceAndItsEndedChildrenLeft() {
    mongo.insert(new Chat(CHAT, "test", Instant.now()));
    task("root", null, TaskStatus.waiting);
    task("analyst", "root", TaskStatus.failed); // a limit stopped it: OutcomeRecorder.fail
    task("researching", "analyst", TaskStatus.running);
    task("asking", "researching", TaskStatus.waiting);
    task("queued", "analyst", TaskStatus.created);
    task("done", "analyst", TaskStatus.success);
    TaskFailed failed =
        new TaskFailed(
            "failed-1",
            Instant.now(),
            "analyst",
            CHAT,
            "analyst-sub-agent",
            "budget_exceeded",
            "Stopped by the token budget.");

    listener.handle(failed);
    listener.handle(failed); // redelivered

    for (String cancelled : List.of("researching", "asking", "queued")) {
      assertThat(mongo.findById(cancelled, Task.class).status())
          .as(cancelled)
          .isEqualTo(TaskStatus.cancelled);
    }
    assertThat(mongo.findById("researching-sub-agent", SubAgent.class).status())
        .isEqualTo(SubAgentStatus.cancelled);
    assertThat(mongo.findById("asking-sub-agent", SubAgent.class).status())
        .isEqualTo(SubAgentStatus.cancelled);
    assertThat(mongo.findById("done", Task.class).status()).isEqualTo(TaskStatus.success);
    assertThat(mongo.findById("analyst", Task.class).status()).isEqualTo(TaskStatus.failed);
    assertThat(mongo.findById("root", Task.class).status())
        .as("the failed task's caller goes on with its tool error")
        .isEqualTo(TaskStatus.waiting);
    assertThat(mongo.findAll(ChatMessage.class)).isEmpty();
    await().until(() -> mongo.findById("researching", Task.class).outbox().isEmpty());
  }

  /** A task with its sub-agent (none while {@code created}), a child of {@code parent} if given. */
  private static void task(String id, @Nullable String parent, TaskStatus status) {
    Instant now = Instant.now();
    String subAgent = status == TaskStatus.created ? null : id + "-sub-agent";
    if (subAgent != null) {
      mongo.insert(
          new SubAgent(
              subAgent,
              id,
              CHAT,
              "researcher",
              status == TaskStatus.running || status == TaskStatus.waiting
                  ? SubAgentStatus.active
                  : SubAgentStatus.completed,
              0,
              null,
              now,
              now));
    }
    mongo.insert(
        new Task(
            id,
            CHAT,
            Task.TYPE_AGENT,
            "researcher",
            "Research",
            null,
            status,
            subAgent,
            null,
            null,
            null,
            now,
            now,
            List.of(),
            parent == null
                ? null
                : new Task.Delegation(
                    parent, parent + "-sub-agent", "root", 1, "call-" + id, "call_" + id, null),
            now,
            null));
  }
}
