package dev.agentrt.orchestrator.chat;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StoreIndexes;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskCancellation;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.testing.MongoGate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Cancelling a task while agent-init starts it, on a real MongoDB-protocol server. The
 * cancellation's client carries a {@link MongoGate}, so the start's writes (made through another
 * client, as agent-init's {@code SubAgentStarter} makes them) land exactly between two of its own.
 */
class TaskCancellationRaceTest {

  private static final MongoGate gate = new MongoGate();
  private static MongoServer server;
  private static MongoClient gatedClient;
  private static MongoClient plainClient;
  private static MongoTemplate mongo;
  private static TaskCancellation cancellation;

  @BeforeAll
  static void startMongo() {
    server = new MongoServer(new MemoryBackend());
    String uri = "mongodb://127.0.0.1:" + server.bind().getPort();
    gatedClient =
        MongoClients.create(
            MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString(uri))
                .addCommandListener(gate)
                .build());
    plainClient = MongoClients.create(uri);
    mongo = new MongoTemplate(plainClient, "agentrt");
    new StoreIndexes(mongo).afterPropertiesSet();
    MongoTemplate cancellersMongo = new MongoTemplate(gatedClient, "agentrt");
    EventPublisher noBroker =
        new EventPublisher(null, "test") {
          @Override
          public CompletableFuture<?> send(OutboxEntry entry, Map<String, String> headers) {
            return CompletableFuture.failedFuture(new IllegalStateException("no broker"));
          }
        };
    cancellation =
        new TaskCancellation(
            cancellersMongo,
            new Outbox(noBroker, cancellersMongo),
            new EventCodec(),
            new RunLedger(cancellersMongo));
  }

  @AfterAll
  static void stopMongo() {
    gatedClient.close();
    plainClient.close();
    server.shutdownNow();
  }

  /** The cancellation read the task {@code created}, without a sub-agent; then it was started. */
  @Test
  void aStartThatLinksTheTaskWhileItIsCancelledHasItsSubAgentCancelled() {
    Task task = createdTask();
    gate.before(
        "findAndModify tasks",
        () -> {
          SubAgent subAgent = madeSubAgent(task);
          mongo.updateFirst(
              Query.query(Criteria.where("_id").is(task.id()).and("status").is(TaskStatus.created)),
              new Update().set("status", TaskStatus.running).set("subAgentId", subAgent.id()),
              Task.class);
        });

    assertThat(cancellation.cancel(task.id()))
        .isInstanceOf(TaskCancellation.Result.Cancelled.class);

    assertThat(gate.opened()).isTrue();
    assertThat(statusOfSubAgentOf(task)).isEqualTo(SubAgentStatus.cancelled);
  }

  /** The start made the sub-agent and has not linked the task to it yet. */
  @Test
  void aSubAgentMadeButNotYetLinkedIsCancelledWithItsTask() {
    Task task = createdTask();
    madeSubAgent(task);

    cancellation.cancel(task.id());

    assertThat(mongo.findById(task.id(), Task.class).status()).isEqualTo(TaskStatus.cancelled);
    assertThat(statusOfSubAgentOf(task)).isEqualTo(SubAgentStatus.cancelled);
  }

  /** A cancellation that died after the task's write: asked again, it cancels the sub-agent. */
  @Test
  void cancellingAgainFinishesACancellationThatDiedBeforeTheSubAgent() {
    Task task = createdTask();
    SubAgent subAgent = madeSubAgent(task);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(task.id())),
        new Update().set("status", TaskStatus.cancelled).set("subAgentId", subAgent.id()),
        Task.class);

    assertThat(cancellation.cancel(task.id()))
        .isInstanceOf(TaskCancellation.Result.AlreadyEnded.class);

    assertThat(statusOfSubAgentOf(task)).isEqualTo(SubAgentStatus.cancelled);
  }

  private static Task createdTask() {
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

  /** The sub-agent as agent-init makes it, before it links the task to it. */
  private static SubAgent madeSubAgent(Task task) {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    return mongo.insert(
        new SubAgent(
            Ids.derived(task.id(), "sub-agent"),
            task.id(),
            task.chatId(),
            task.agent(),
            SubAgentStatus.active,
            0,
            null,
            now,
            now));
  }

  private static SubAgentStatus statusOfSubAgentOf(Task task) {
    return mongo.findById(Ids.derived(task.id(), "sub-agent"), SubAgent.class).status();
  }
}
