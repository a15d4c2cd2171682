package dev.agentrt.toolrunner.calls;

import static dev.agentrt.toolrunner.calls.ToolCallFixtures.call;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.now;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.pending;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.requested;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.subAgent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.LeaseSweeper;
import dev.agentrt.store.StoreIndexes;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.toolrunner.tools.Toolbox;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Tool calls held with libs/store {@code Leases}, two runners (two tool-runner instances, each its
 * own holder) on one real MongoDB-protocol server, with short leases: a live runner's renewed hold
 * is respected, a dead runner's call is taken up by the other, and a cancelled task's call whose
 * runner died ends {@code cancelled}.
 */
class ToolCallLeasesTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final AgentCatalog AGENTS =
      AgentCatalog.read(
          new ByteArrayInputStream(
              """
              agents:
                - name: researcher
                  description: Researches.
                  systemPrompt: Research.
                  tools: [search_docs]
              """
                  .getBytes(StandardCharsets.UTF_8)),
          "test agents");
  private static final ToolCallProperties PROPERTIES =
      new ToolCallProperties(Duration.ofSeconds(60), Duration.ofSeconds(10));

  private static InMemoryMongo store;
  private static MongoTemplate mongo;

  private final RecordingPublisher published = new RecordingPublisher();
  private final List<ToolCallRunner> runners = new ArrayList<>();
  private final List<LeaseSweeper> heartbeats = new ArrayList<>();
  private final ScriptedTool tool = new ScriptedTool();

  @BeforeAll
  static void startMongo() {
    store = InMemoryMongo.start();
    mongo = store.template();
  }

  @AfterAll
  static void stopMongo() {
    store.close();
  }

  @BeforeEach
  void emptyStore() {
    store.clear();
    new StoreIndexes(mongo).afterPropertiesSet();
    new ToolCallIndexes(mongo).afterPropertiesSet();
  }

  @AfterEach
  void stop() {
    heartbeats.forEach(LeaseSweeper::stop);
    runners.forEach(ToolCallRunner::destroy);
  }

  @Test
  void aCallWhoseHoldIsRenewedWhileItsToolRunsIsNotTakenByAnotherRunner() throws Exception {
    ToolCallRunner live = runner(Duration.ofSeconds(2));
    heartbeat(live, new LeaseProperties(Duration.ofSeconds(2), Duration.ofMillis(100)));
    ToolCallRunner other = runner(Duration.ofSeconds(2));
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"slow\"}"));
    tool.release = new CountDownLatch(1);

    assertThat(live.onRequested(requested(call))).isTrue();
    assertThat(tool.started.await(10, TimeUnit.SECONDS)).isTrue();
    Instant firstLeaseEnd = reload(call).lease().leaseUntil();
    // The tool runs on past the hold's first end; the heartbeat has moved it further.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                Instant.now().isAfter(firstLeaseEnd)
                    && reload(call).lease().leaseUntil().isAfter(firstLeaseEnd));

    assertThat(Runners.sweeper(other).takeUp()).as("the other runner takes nothing").isZero();
    assertThat(reload(call).lease().holder()).isEqualTo(live.calls().leases().holder());
    assertThat(reload(call).status()).isEqualTo(ToolCallStatus.running);
    tool.release.countDown();
    ToolCall done = Runners.awaitAnswered(mongo, call);

    assertThat(done.status()).isEqualTo(ToolCallStatus.success);
    assertThat(tool.executions).hasValue(1);
    assertThat(messagesOf(subAgent)).hasSize(1);
    assertThat(published.entries).hasSize(1);
  }

  @Test
  void aDeadRunnersRunningCallIsTakenByTheOtherAndRunOnceMore() throws Exception {
    ToolCallRunner dead = runner(Duration.ofSeconds(1)); // no heartbeat: it died mid-tool
    ToolCallRunner other = runner(Duration.ofSeconds(30));
    ToolCallSweeper otherSweeper = Runners.sweeper(other);
    CountDownLatch deadRunnersTool = new CountDownLatch(1);
    tool.whileRunning =
        () -> {
          if (tool.executions.get() == 1) {
            waitFor(deadRunnersTool);
          }
        };
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"kafka\"}"));
    assertThat(dead.onRequested(requested(call))).isTrue();
    assertThat(tool.started.await(10, TimeUnit.SECONDS)).isTrue();

    await().atMost(Duration.ofSeconds(20)).until(() -> otherSweeper.takeUp() == 1);
    ToolCall done = Runners.awaitAnswered(mongo, call);

    assertThat(done.status()).isEqualTo(ToolCallStatus.success);
    assertThat(tool.executions).as("search_docs is idempotent: run once more").hasValue(2);
    assertThat(messagesOf(subAgent)).hasSize(1);
    // The first worker was only stuck: its late result changes nothing.
    deadRunnersTool.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> dead.callsInFlight() == 0);
    assertThat(reload(call)).isEqualTo(done);
    assertThat(messagesOf(subAgent)).hasSize(1);
    assertThat(published.entries).hasSize(1);
  }

  @Test
  void aRunningCallOfACancelledTaskWhoseRunnerDiedEndsCancelledWithoutRunning() {
    ToolCallRunner runner = runner(Duration.ofSeconds(30));
    SubAgent subAgent = stored(cancelled(subAgent()));
    Instant started = now().minusSeconds(120);
    ToolCall call =
        stored(
            call(
                subAgent,
                "search_docs",
                "{\"query\":\"x\"}",
                ToolCallStatus.running,
                started.plusSeconds(30),
                started));

    assertThat(Runners.sweeper(runner).takeUp()).isEqualTo(1);
    ToolCall done = Runners.awaitAnswered(mongo, call);

    assertThat(tool.executions).hasValue(0);
    assertThat(done.status()).isEqualTo(ToolCallStatus.failed);
    assertThat(JSON.readTree(done.error()).get("error_type").asString()).isEqualTo("cancelled");
    assertThat(Runners.sweeper(runner).takeUp()).isZero();
  }

  // --- helpers

  private ToolCallRunner runner(Duration lease) {
    ToolCallRunner made =
        Runners.runner(
            mongo,
            published,
            AGENTS,
            PROPERTIES,
            Toolbox.of(List.of(tool), PROPERTIES.settings()),
            lease);
    runners.add(made);
    return made;
  }

  /** The service's heartbeat for this runner: libs/store's sweeper over its leased work. */
  private void heartbeat(ToolCallRunner runner, LeaseProperties every) {
    LeaseSweeper sweeper = new LeaseSweeper(List.of(Runners.sweeper(runner)), every);
    heartbeats.add(sweeper);
    sweeper.start();
  }

  private static SubAgent cancelled(SubAgent subAgent) {
    return new SubAgent(
        subAgent.id(),
        subAgent.taskId(),
        subAgent.chatId(),
        subAgent.agent(),
        SubAgentStatus.cancelled,
        subAgent.messageCount(),
        null,
        subAgent.createdAt(),
        subAgent.updatedAt());
  }

  private static <T> T stored(T document) {
    return mongo.insert(document);
  }

  private static ToolCall reload(ToolCall call) {
    return mongo.findById(call.id(), ToolCall.class);
  }

  private static List<?> messagesOf(SubAgent subAgent) {
    return new SubAgentConversations(mongo).messages(subAgent.id());
  }

  private static void waitFor(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    }
  }
}
