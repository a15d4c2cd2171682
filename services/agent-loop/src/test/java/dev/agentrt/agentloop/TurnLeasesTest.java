package dev.agentrt.agentloop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.Topics;
import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelReply;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.store.Ids;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.LeaseSweeper;
import dev.agentrt.store.LeasedWork;
import dev.agentrt.store.Leases;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StepStarts;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.testing.ScriptedModel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
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
 * The turn's lease with its heartbeat, between instances of the service (each its own {@link
 * Leases} holder and {@link LeaseSweeper}), on a real MongoDB-protocol server and broker: a turn
 * renewed while its model call lasts is not taken by another; one whose worker died is; one whose
 * sub-agent was cancelled is interrupted at the next renewal; a stopping instance lets go of its
 * turns. Leases are short (1 s, renewed every 200 ms) so that all of it happens within a test.
 */
class TurnLeasesTest {

  private static final AgentCatalog AGENTS =
      AgentCatalog.read(
          new ByteArrayInputStream(
              """
              agents:
                - name: writer
                  description: Writes.
                  systemPrompt: You write.
              """
                  .getBytes(StandardCharsets.UTF_8)),
          "test agents");

  private static final LeaseProperties SHORT =
      new LeaseProperties(Duration.ofSeconds(1), Duration.ofMillis(200));

  private static EmbeddedKafkaKraftBroker kafka;
  private static InMemoryMongo mongoServer;
  private static MongoTemplate mongo;
  private static Outbox outbox;
  private static SubAgentConversations conversations;
  private static RunLedger ledger;
  private static StepStarts starts;

  private final List<Instance> instances = new ArrayList<>();
  private SubAgent subAgent;

  @BeforeAll
  static void startInfrastructure() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1, Topics.TASKS, Topics.TOOL_CALLS);
    kafka.afterPropertiesSet();
    mongoServer = InMemoryMongo.start();
    mongo = mongoServer.template();
    outbox =
        new Outbox(
            new EventPublisher(
                new KafkaTemplate<>(
                    new DefaultKafkaProducerFactory<>(
                        Map.of("bootstrap.servers", kafka.getBrokersAsString()),
                        new StringSerializer(),
                        new ByteArraySerializer())),
                "turn-leases-test"),
            mongo);
    conversations = new SubAgentConversations(mongo);
    ledger = new RunLedger(mongo);
    starts = new StepStarts(ledger, AgentLoopTest.PROPERTIES.startShownAfter(), "turn-start-timer");
  }

  @AfterAll
  static void stopInfrastructure() {
    mongoServer.close();
    kafka.destroy();
  }

  @BeforeEach
  void aSubAgentWithATaskToDo() {
    Instant now = Instant.now();
    String taskId = Ids.fresh();
    subAgent =
        mongo.insert(
            new SubAgent(
                Ids.derived(taskId, "sub-agent"),
                taskId,
                Ids.fresh(),
                "writer",
                SubAgentStatus.active,
                0,
                null,
                now,
                now,
                null,
                new SubAgent.Settings(null, null)));
    mongo.insert(
        new Task(
            taskId,
            subAgent.chatId(),
            Task.TYPE_AGENT,
            "writer",
            "Write",
            null,
            TaskStatus.running,
            subAgent.id(),
            null,
            null,
            null,
            now,
            now,
            List.of()));
    append(SubAgentMessage.SYSTEM, "You write.");
    append(SubAgentMessage.USER, "Write a haiku");
  }

  @AfterEach
  void stopInstances() {
    instances.forEach(Instance::stop);
  }

  @Test
  void aTurnWhoseModelCallOutlastsItsLeaseIsRenewedAndNotTakenByAnotherInstance() throws Exception {
    CountDownLatch called = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Instance a = instance(new ScriptedModel().then(held(called, release, "A haiku.")));
    Instance b = instance(new ScriptedModel().replies("Another haiku."));
    a.loop.wake(subAgent.id());
    assertThat(called.await(10, TimeUnit.SECONDS)).isTrue();
    Instant firstLease = turn().leaseUntil();
    a.sweeper.start();
    b.sweeper.start();

    // Renewed past its first lease: renewed at or after the moment that lease ran out.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> turn().leaseUntil().isAfter(firstLease.plus(SHORT.duration())));
    int sweeps = b.sweeps.get();
    await().atMost(Duration.ofSeconds(20)).until(() -> b.sweeps.get() >= sweeps + 3);

    assertThat(turn().holder()).isEqualTo(a.leases.holder());
    assertThat(b.model.requests()).as("the other instance never took the turn").isEmpty();
    release.countDown();
    await().until(() -> task().status() == TaskStatus.success);
    assertThat(task().result()).isEqualTo("A haiku.");
    assertThat(answers()).hasSize(1);
  }

  @Test
  void aTurnWhoseWorkerDiedIsTakenByAnotherInstanceAndAnsweredOnce() throws Exception {
    CountDownLatch called = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Instance dying = instance(new ScriptedModel().then(held(called, release, "A late haiku.")));
    Instance other = instance(new ScriptedModel().replies("A haiku."));
    dying.loop.wake(subAgent.id());
    assertThat(called.await(10, TimeUnit.SECONDS)).isTrue();
    dying.sweeper.start();
    await().until(() -> dying.sweeps.get() >= 1); // it lived a little, renewing
    dying.sweeper.stop(); // and died: nobody renews its turn any more

    other.sweeper.start();

    await().atMost(Duration.ofSeconds(20)).until(() -> task().status() == TaskStatus.success);
    assertThat(other.model.requests()).hasSize(1);
    assertThat(task().result()).isEqualTo("A haiku.");
    release.countDown(); // the dead worker's call comes back after all: it changes nothing
    dying.workers.shutdown();
    assertThat(dying.workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(answers()).extracting(SubAgentMessage::content).containsExactly("A haiku.");
    assertThat(task().result()).isEqualTo("A haiku.");
  }

  @Test
  void aTurnWhoseSubAgentWasCancelledIsInterruptedAtTheNextRenewalAndStoresNothing()
      throws Exception {
    CountDownLatch called = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    Instance a = instance(new ScriptedModel().then(heldUntilInterrupted(called, interrupted)));
    a.loop.wake(subAgent.id());
    assertThat(called.await(10, TimeUnit.SECONDS)).isTrue();

    cancel(); // as the orchestrator does; no event reaches this instance
    a.sweeper.start();

    assertThat(interrupted.await(20, TimeUnit.SECONDS))
        .as("the model call is interrupted")
        .isTrue();
    await().until(() -> !a.leases.holds(subAgent.id()));
    await().until(() -> turn().holder() == null);
    assertTurnStoredNothing(a);
  }

  @Test
  void aStoppingInstanceInterruptsItsTurnAndLetsGoOfItSoAnotherTakesItAtOnce() throws Exception {
    LeaseProperties longLease = new LeaseProperties(Duration.ofMinutes(5), Duration.ofMinutes(1));
    CountDownLatch called = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    Instance stopping =
        instance(new ScriptedModel().then(heldUntilInterrupted(called, interrupted)), longLease);
    Instance other = instance(new ScriptedModel().replies("A haiku."), longLease);
    stopping.loop.wake(subAgent.id());
    assertThat(called.await(10, TimeUnit.SECONDS)).isTrue();

    stopping.loop.stop();

    assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
    other.loop.wake(subAgent.id()); // what its sweep does with a turn let go of
    await().until(() -> task().status() == TaskStatus.success);
    assertThat(answers()).extracting(SubAgentMessage::content).containsExactly("A haiku.");
    assertThat(ledger.after(subAgent.chatId(), 0, 100))
        .extracting(RunEvent::type)
        .doesNotContain(RunEvent.ERROR);
  }

  @Test
  void aSubAgentWhoseMessageEventWasLostIsWokenByTheSweepAndAnsweredOnce() {
    // The user's message is stored, but its event never reaches an instance (dead-lettered while
    // MongoDB was down, say): only the sweep can see that the message waits.
    Instance a = instance(new ScriptedModel().replies("A haiku."));
    Instance b = instance(new ScriptedModel().replies("Another haiku."));
    a.sweeper.start();
    b.sweeper.start();

    await().atMost(Duration.ofSeconds(20)).until(() -> task().status() == TaskStatus.success);
    assertThat(answers()).hasSize(1);
    assertThat(a.model.requests().size() + b.model.requests().size()).isOne();
  }

  @Test
  void aSubAgentWaitingForItsToolsIsLookedAtOnceBySweepsNotAtEachOne() {
    appendAnswerCalling("call-1", "call-2");
    appendToolResult("call-1"); // call-2 still runs: nothing for the loop to do
    Instance a = instance(new ScriptedModel().replies("A haiku."));
    a.sweeper.start();

    await().atMost(Duration.ofSeconds(20)).until(() -> unlookedSince() == null);
    int sweeps = a.sweeps.get();
    await().atMost(Duration.ofSeconds(20)).until(() -> a.sweeps.get() >= sweeps + 3);
    assertThat(unlookedSince()).as("marked looked at, and not looked at again").isNull();
    assertThat(a.model.requests()).isEmpty();

    appendToolResult("call-2"); // whose event is lost too: the sweep wakes the loop for it
    await().atMost(Duration.ofSeconds(20)).until(() -> task().status() == TaskStatus.success);
    assertThat(a.model.requests()).hasSize(1);
  }

  private void appendAnswerCalling(String... callIds) {
    conversations.append(
        subAgent,
        new NewMessage(
            Ids.fresh(),
            SubAgentMessage.ASSISTANT,
            null,
            Arrays.stream(callIds)
                .map(id -> new RequestedToolCall(id, "web_search", "{}"))
                .toList(),
            null,
            List.of()),
        Instant.now());
  }

  private void appendToolResult(String callId) {
    conversations.append(
        subAgent,
        new NewMessage(Ids.fresh(), SubAgentMessage.TOOL, "a result", List.of(), callId, List.of()),
        Instant.now());
  }

  private Object unlookedSince() {
    return mongo
        .getCollection(dev.agentrt.store.Collections.SUB_AGENTS)
        .find(new Document("_id", subAgent.id()))
        .first()
        .get(SubAgent.UNLOOKED_SINCE);
  }

  /** The sub-agent and its task cancelled, as the orchestrator's cancellation leaves them. */
  private void cancel() {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new Update().set("status", SubAgentStatus.cancelled),
        SubAgent.class);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.taskId())),
        new Update().set("status", TaskStatus.cancelled),
        Task.class);
  }

  /** An interrupted turn: no answer, no failure, no error recorded, one model call. */
  private void assertTurnStoredNothing(Instance instance) {
    assertThat(instance.model.requests()).hasSize(1);
    assertThat(conversations.messages(subAgent.id()))
        .extracting(SubAgentMessage::role)
        .containsExactly(SubAgentMessage.SYSTEM, SubAgentMessage.USER);
    assertThat(task().status()).isEqualTo(TaskStatus.cancelled);
    assertThat(task().error()).isNull();
    assertThat(ledger.after(subAgent.chatId(), 0, 100))
        .extracting(RunEvent::type)
        .doesNotContain(RunEvent.ERROR, RunEvent.RUN_END, RunEvent.STEP_END);
  }

  private Instance instance(ScriptedModel model) {
    return instance(model, SHORT);
  }

  /** An instance of the service: its own holds, sweeper, model and turn threads. */
  private Instance instance(ScriptedModel model, LeaseProperties lease) {
    BulkWrites writes = new BulkWrites(mongo);
    Leases leases = AgentLoopConfiguration.turnLeases(mongo, writes, lease.duration());
    ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
    // One attempt, and a timeout no held call reaches: a model call ends only as the test says.
    AgentLoopProperties properties =
        new AgentLoopProperties(
            1,
            Duration.ofMillis(10),
            Duration.ofMinutes(1),
            16,
            Duration.ofMillis(200),
            Duration.ZERO,
            Duration.ofMillis(50));
    AgentLoop loop =
        new AgentLoop(
            mongo,
            conversations,
            AGENTS,
            new ModelCaller(model, properties, new SimpleMeterRegistry()),
            new OutcomeRecorder(
                mongo,
                writes,
                conversations,
                outbox,
                new EventCodec(),
                new UsageCounter(mongo),
                ledger,
                new Delegations(
                    mongo,
                    writes,
                    conversations,
                    AGENTS,
                    outbox,
                    new EventCodec(),
                    ledger,
                    new RunLimits(25, 100_000, 0.9, Duration.ofMinutes(10), 3, 5)),
                properties),
            new OutputSchemaCheck(),
            new RunLimits(25, 100_000, 0.9, Duration.ofMinutes(10), 3, 5),
            leases,
            workers,
            properties.eventWait(),
            properties.resultWait(),
            ledger,
            starts,
            ObservationRegistry.NOOP,
            new SimpleMeterRegistry(),
            AgentLoopTest.CONFIG);
    AtomicInteger sweeps = new AtomicInteger();
    RunSweeper turns = new RunSweeper(loop, leases);
    LeasedWork counted =
        new LeasedWork() {
          @Override
          public Leases leases() {
            return leases;
          }

          @Override
          public void sweep() {
            turns.sweep();
            sweeps.incrementAndGet();
          }
        };
    Instance instance =
        new Instance(
            model, leases, loop, workers, new LeaseSweeper(List.of(counted), lease), sweeps);
    instances.add(instance);
    return instance;
  }

  private record Instance(
      ScriptedModel model,
      Leases leases,
      AgentLoop loop,
      ExecutorService workers,
      LeaseSweeper sweeper,
      AtomicInteger sweeps) {

    void stop() {
      sweeper.stop();
      loop.stop();
    }
  }

  /** A model call that says it was made, then holds until released, then replies. */
  static Supplier<ModelReply> held(CountDownLatch called, CountDownLatch release, String reply) {
    return () -> {
      called.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ModelException("the model call was interrupted", false, e);
      }
      return ScriptedModel.reply(reply, List.of());
    };
  }

  /**
   * A model call that says it was made, then holds until it is interrupted, as the model port's
   * HTTP call is: it then fails with the interrupt flag set.
   */
  static Supplier<ModelReply> heldUntilInterrupted(
      CountDownLatch called, CountDownLatch interrupted) {
    return () -> {
      called.countDown();
      try {
        new CountDownLatch(1).await();
        throw new IllegalStateException("unreachable");
      } catch (InterruptedException e) {
        interrupted.countDown();
        Thread.currentThread().interrupt();
        throw new ModelException("the model call was interrupted", false, e);
      }
    };
  }

  private void append(String role, String content) {
    conversations.append(
        subAgent,
        new NewMessage(Ids.fresh(), role, content, List.of(), null, List.of()),
        Instant.now());
  }

  private List<SubAgentMessage> answers() {
    return conversations.messages(subAgent.id()).stream()
        .filter(m -> m.role().equals(SubAgentMessage.ASSISTANT))
        .toList();
  }

  private SubAgent.Turn turn() {
    return mongo.findById(subAgent.id(), SubAgent.class).turn();
  }

  private Task task() {
    return mongo.findById(subAgent.taskId(), Task.class);
  }
}
