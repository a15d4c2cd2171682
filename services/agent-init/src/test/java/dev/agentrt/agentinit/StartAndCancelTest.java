package dev.agentrt.agentinit;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StoreIndexes;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.testing.MongoGate;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A task's start and its cancellation in every order, on a real MongoDB-protocol server: a task
 * cancelled before its sub-agent was linked to it never gets a message the loop would answer. The
 * starter's client carries a {@link MongoGate}, so the cancellation (written through another
 * client, as libs/store {@code TaskCancellation} writes it) lands exactly between two of the
 * start's writes.
 */
class StartAndCancelTest {

  private static final AgentCatalog AGENTS =
      AgentCatalog.read(
          new ByteArrayInputStream(
              """
              agents:
                - name: researcher
                  description: Researches.
                  systemPrompt: You research.
                  tools: [search_docs]
              """
                  .getBytes(StandardCharsets.UTF_8)),
          "test agents");

  private static final MongoGate gate = new MongoGate();
  private static EmbeddedKafkaKraftBroker kafka;
  private static MongoServer mongoServer;
  private static MongoClient gatedClient;
  private static MongoClient plainClient;
  private static MongoTemplate mongo;
  private static SubAgentStarter starter;
  private static CancelledSubAgents cancelledSubAgents;

  @BeforeAll
  static void startInfrastructure() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1, Topics.TASKS, Topics.SUB_AGENT_MESSAGES);
    kafka.afterPropertiesSet();
    mongoServer = new MongoServer(new MemoryBackend());
    String uri = "mongodb://127.0.0.1:" + mongoServer.bind().getPort();
    gatedClient =
        MongoClients.create(
            MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(uri))
                .addCommandListener(gate)
                .build());
    plainClient = MongoClients.create(uri);
    mongo = new MongoTemplate(plainClient, "agentrt");
    new StoreIndexes(mongo).afterPropertiesSet();
    MongoTemplate startersMongo = new MongoTemplate(gatedClient, "agentrt");
    KafkaTemplate<String, byte[]> template =
        new KafkaTemplate<>(
            new DefaultKafkaProducerFactory<>(
                Map.of("bootstrap.servers", kafka.getBrokersAsString()),
                new StringSerializer(),
                new ByteArraySerializer()));
    cancelledSubAgents = new CancelledSubAgents(mongo, new RunLedger(mongo));
    starter =
        new SubAgentStarter(
            startersMongo,
            new BulkWrites(startersMongo),
            new SubAgentConversations(startersMongo),
            AGENTS,
            new Outbox(new EventPublisher(template, "agent-init-test"), startersMongo),
            new EventCodec(),
            new RunLedger(startersMongo),
            new CancelledSubAgents(startersMongo, new RunLedger(startersMongo)));
  }

  @AfterAll
  static void stopInfrastructure() {
    gatedClient.close();
    plainClient.close();
    mongoServer.shutdownNow();
    kafka.destroy();
  }

  /** Its event carries what the start needs: the task is not read, the link finds it cancelled. */
  @Test
  void aTaskCancelledBeforeItsStartNeverStarts() {
    TaskCreated created = created(storedTask());
    cancel(created.taskId());

    starter.start(created);

    assertNeverStarted(created);
    assertThat(taskOf(created).subAgentId()).isNull();
  }

  /** An event published before events carried the start: the task is read first. */
  @Test
  void aTaskCancelledBeforeAStartThatReadsItNeverGetsASubAgent() {
    TaskCreated created = withoutStart(created(storedTask()));
    cancel(created.taskId());

    starter.start(created);

    assertThat(subAgentOf(created)).isNull();
    assertThat(taskOf(created).status()).isEqualTo(TaskStatus.cancelled);
  }

  @Test
  void aTaskCancelledAfterItStartedHasItsSubAgentCancelled() {
    TaskCreated created = created(storedTask());
    starter.start(created);

    cancel(created.taskId());

    assertThat(subAgentOf(created).status()).isEqualTo(SubAgentStatus.cancelled);
  }

  /** The task is {@code created} as the start begins; the cancellation finds no sub-agent yet. */
  @Test
  void aCancellationJustBeforeTheSubAgentIsMadeLeavesItCancelledWithoutMessages() {
    TaskCreated created = created(storedTask());
    gate.before("insert sub_agents", () -> cancel(created.taskId()));

    starter.start(created);

    assertThat(gate.opened()).isTrue();
    assertNeverStarted(created);
  }

  /** The sub-agent is made; the task is cancelled before the start links it. */
  @Test
  void aCancellationBetweenTheSubAgentAndTheLinkLeavesItCancelledWithoutMessages() {
    TaskCreated created = created(storedTask());
    gate.before("findAndModify tasks", () -> cancel(created.taskId()));

    starter.start(created);

    assertThat(gate.opened()).isTrue();
    assertNeverStarted(created);
  }

  /**
   * A start that died after making the sub-agent; the task was cancelled; the event comes again.
   */
  @Test
  void aStartRedeliveredAfterTheCancellationDoesNotResumeIt() {
    TaskCreated created = created(storedTask());
    gate.before("findAndModify tasks", () -> cancel(created.taskId()));
    starter.start(created);

    starter.start(created);

    assertNeverStarted(created);
  }

  /**
   * The cancellation wrote the task's status (with {@code TaskCancelled} in its outbox) and died
   * before its sub-agent's: the event stops the sub-agent and its calls no tool-runner started.
   */
  @Test
  void taskCancelledStopsTheSubAgentACancellationThatDiedLeftRunning() {
    TaskCreated created = created(storedTask());
    starter.start(created);
    SubAgent subAgent = subAgentOf(created);
    ToolCall pending = pendingCall(subAgent);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(created.taskId())),
        new Update().set("status", TaskStatus.cancelled),
        Task.class);

    cancelledSubAgents.stop(created.taskId(), Instant.now());

    assertThat(subAgentOf(created).status()).isEqualTo(SubAgentStatus.cancelled);
    assertThat(mongo.findById(pending.id(), ToolCall.class).status())
        .isEqualTo(ToolCallStatus.failed);
  }

  /** Start and cancellation released together, many times: a cancelled task never runs. */
  @Test
  void startAndCancellationAtOnceNeverLeaveACancelledTaskWithAnActiveSubAgent() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      List<TaskCreated> tasks = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        TaskCreated created = created(storedTask());
        tasks.add(created);
        CyclicBarrier together = new CyclicBarrier(2);
        CompletableFuture<Void> start =
            CompletableFuture.runAsync(
                () -> {
                  await(together);
                  starter.start(created);
                },
                threads);
        CompletableFuture<Void> cancel =
            CompletableFuture.runAsync(
                () -> {
                  await(together);
                  cancel(created.taskId());
                },
                threads);
        CompletableFuture.allOf(start, cancel).get();
      }
      for (TaskCreated created : tasks) {
        assertThat(taskOf(created).status()).isEqualTo(TaskStatus.cancelled);
        SubAgent subAgent = subAgentOf(created);
        assertThat(subAgent == null ? SubAgentStatus.cancelled : subAgent.status())
            .as("the sub-agent of task %s", created.taskId())
            .isEqualTo(SubAgentStatus.cancelled);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The task's and its sub-agent's writes of libs/store {@code TaskCancellation}. */
  private static void cancel(String taskId) {
    mongo.updateFirst(
        Query.query(
            Criteria.where("_id")
                .is(taskId)
                .and("status")
                .in(TaskStatus.created, TaskStatus.running, TaskStatus.waiting)),
        new Update().set("status", TaskStatus.cancelled),
        Task.class);
    mongo.updateFirst(
        Query.query(
            Criteria.where("taskId")
                .is(taskId)
                .and("status")
                .in(SubAgentStatus.active, SubAgentStatus.waiting_for_user)),
        new Update().set("status", SubAgentStatus.cancelled),
        SubAgent.class);
  }

  private static void assertNeverStarted(TaskCreated created) {
    SubAgent subAgent = subAgentOf(created);
    assertThat(subAgent.status()).isEqualTo(SubAgentStatus.cancelled);
    assertThat(new SubAgentConversations(mongo).messages(subAgent.id()))
        .as("nothing for the loop to answer")
        .isEmpty();
    assertThat(taskOf(created).status()).isEqualTo(TaskStatus.cancelled);
  }

  private static ToolCall pendingCall(SubAgent subAgent) {
    Instant now = Instant.now();
    return mongo.insert(
        new ToolCall(
            Ids.fresh(),
            subAgent.id(),
            subAgent.taskId(),
            subAgent.chatId(),
            subAgent.agent(),
            "c1",
            "search_docs",
            "{}",
            ToolCallStatus.pending,
            null,
            null,
            null,
            null,
            now,
            now,
            List.of()));
  }

  private static Task storedTask() {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    return mongo.insert(
        new Task(
            Ids.fresh(),
            Ids.fresh(),
            Task.TYPE_AGENT,
            "researcher",
            "Research Kafka",
            TaskStatus.created,
            null,
            null,
            null,
            now,
            now,
            List.of()));
  }

  /** The task's event as its creator publishes it, carrying what the start needs. */
  private static TaskCreated created(Task task) {
    return UnstartedTaskSweep.createdOf(task);
  }

  private static TaskCreated withoutStart(TaskCreated created) {
    return new TaskCreated(
        created.eventId(),
        created.occurredAt(),
        created.taskId(),
        created.chatId(),
        created.agent(),
        created.instruction());
  }

  private static Task taskOf(TaskCreated created) {
    return mongo.findById(created.taskId(), Task.class);
  }

  private static @Nullable SubAgent subAgentOf(TaskCreated created) {
    return mongo.findById(Ids.derived(created.taskId(), "sub-agent"), SubAgent.class);
  }
}
