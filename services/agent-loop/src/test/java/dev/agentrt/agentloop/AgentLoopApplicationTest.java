package dev.agentrt.agentloop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCancelled;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Ids;
import dev.agentrt.store.Leases;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.testing.ConsumerGroups;
import dev.agentrt.testing.ScriptedModel;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The service as it runs, on a real KRaft broker and MongoDB-protocol server, with the model
 * scripted: a turn waiting for the model is interrupted when its task's {@code TaskCancelled}
 * arrives on the tasks topic. Holds are renewed only every 5 minutes here, so the interruption can
 * only come from the event.
 */
class AgentLoopApplicationTest {

  private static final ScriptedModel model = new ScriptedModel();

  private static EmbeddedKafkaKraftBroker kafka;
  private static MongoServer mongoServer;
  private static ConfigurableApplicationContext app;

  @BeforeAll
  static void start() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1);
    kafka.afterPropertiesSet();
    mongoServer = new MongoServer(new MemoryBackend());
    ApplicationContextInitializer<ConfigurableApplicationContext> scriptedModel =
        context -> context.getBeanFactory().registerSingleton("scriptedModel", model);
    app =
        new SpringApplicationBuilder(AgentLoopApplication.class)
            .initializers(scriptedModel)
            .run(
                "--spring.kafka.bootstrap-servers=" + kafka.getBrokersAsString(),
                "--spring.mongodb.uri=mongodb://127.0.0.1:"
                    + mongoServer.bind().getPort()
                    + "/agentrt",
                "--server.port=0",
                "--agentrt.leases.duration=10m",
                "--agentrt.leases.renew-every=5m");
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
    mongoServer.shutdownNow();
    kafka.destroy();
  }

  @Test
  void aTurnWaitingForTheModelIsInterruptedWhenItsTasksCancellationArrives() throws Exception {
    Leases turns = app.getBean(Leases.class);
    // every instance hears every cancellation: a group of its own, named after its holder id
    String cancellations = "agent-loop-cancellations-" + turns.holder();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> ConsumerGroups.isReading(kafka.getBrokersAsString(), cancellations));
    SubAgent subAgent = aSubAgentWithATaskToDo();
    CountDownLatch called = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    model.then(TurnLeasesTest.heldUntilInterrupted(called, interrupted));
    app.getBean(AgentLoop.class).wake(subAgent.id());
    assertThat(called.await(20, TimeUnit.SECONDS)).isTrue();

    cancel(subAgent);
    OutboxEntry event =
        OutboxEntry.of(
            new TaskCancelled(
                Ids.derived(subAgent.taskId(), "cancelled"),
                Instant.now(),
                subAgent.taskId(),
                subAgent.chatId(),
                subAgent.id(),
                "nothing yet"),
            new EventCodec());
    // Sent again until heard, as a redelivery would be: a new group reads from the newest record,
    // and its first position may be fixed a moment after its partitions are assigned.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              app.getBean(EventPublisher.class).send(event).get(10, TimeUnit.SECONDS);
              return interrupted.await(400, TimeUnit.MILLISECONDS);
            });

    await().until(() -> !turns.holds(subAgent.id()));
    MongoTemplate mongo = app.getBean(MongoTemplate.class);
    await().until(() -> mongo.findById(subAgent.id(), SubAgent.class).turn().holder() == null);
    assertThat(model.requests()).hasSize(1);
    assertThat(app.getBean(SubAgentConversations.class).messages(subAgent.id()))
        .as("no answer, no failure")
        .extracting(SubAgentMessage::role)
        .containsExactly(SubAgentMessage.SYSTEM, SubAgentMessage.USER);
    Task task = mongo.findById(subAgent.taskId(), Task.class);
    assertThat(task.status()).isEqualTo(TaskStatus.cancelled);
    assertThat(task.error()).isNull();
    assertThat(app.getBean(RunLedger.class).after(subAgent.chatId(), 0, 100))
        .extracting(RunEvent::type)
        .doesNotContain(RunEvent.ERROR, RunEvent.RUN_END);
  }

  private static SubAgent aSubAgentWithATaskToDo() {
    MongoTemplate mongo = app.getBean(MongoTemplate.class);
    Instant now = Instant.now();
    String taskId = Ids.fresh();
    SubAgent subAgent =
        mongo.insert(
            new SubAgent(
                Ids.derived(taskId, "sub-agent"),
                taskId,
                Ids.fresh(),
                "researcher",
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
            "researcher",
            "Research Kafka",
            null,
            TaskStatus.running,
            subAgent.id(),
            null,
            null,
            null,
            now,
            now,
            List.of()));
    SubAgentConversations conversations = app.getBean(SubAgentConversations.class);
    for (String role : List.of(SubAgentMessage.SYSTEM, SubAgentMessage.USER)) {
      conversations.append(
          subAgent, new NewMessage(Ids.fresh(), role, role, List.of(), null, List.of()), now);
    }
    return subAgent;
  }

  /** As the orchestrator's cancellation does before it publishes {@code TaskCancelled}. */
  private static void cancel(SubAgent subAgent) {
    MongoTemplate mongo = app.getBean(MongoTemplate.class);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.taskId())),
        new Update().set("status", TaskStatus.cancelled),
        Task.class);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new Update().set("status", SubAgentStatus.cancelled),
        SubAgent.class);
  }
}
