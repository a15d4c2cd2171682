package dev.agentrt.toolrunner.calls;

import static dev.agentrt.toolrunner.calls.ToolCallFixtures.pending;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.requested;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.subAgent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.store.StoreIndexes;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.toolrunner.mcp.McpServer;
import dev.agentrt.toolrunner.mcp.McpTestServers;
import dev.agentrt.toolrunner.tools.ToolSettings;
import dev.agentrt.toolrunner.tools.Toolbox;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A cancelled task's running tools are stopped ({@code ToolCallRunner.cancel}, what {@code
 * TaskCancelled} triggers): the tool is interrupted, an MCP server is told so with {@code
 * notifications/cancelled}, and the call ends {@code failed} with {@code cancelled}, answered. On a
 * real MongoDB-protocol server and real MCP servers over stdio; {@code ToolRunnerApplicationTest}
 * covers the event on a real broker.
 */
class ToolCallCancelTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final AgentCatalog AGENTS =
      AgentCatalog.read(
          new ByteArrayInputStream(
              """
              agents:
                - name: researcher
                  description: Researches.
                  systemPrompt: Research.
                  tools: [search_docs, slow__*]
              """
                  .getBytes(StandardCharsets.UTF_8)),
          "test agents");
  private static final ToolCallProperties PROPERTIES =
      new ToolCallProperties(Duration.ofSeconds(60), Duration.ofSeconds(10));

  private static InMemoryMongo store;
  private static MongoTemplate mongo;

  private final RecordingPublisher published = new RecordingPublisher();
  private final List<ToolCallRunner> runners = new ArrayList<>();
  private final List<McpServer> servers = new ArrayList<>();

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
  }

  @AfterEach
  void stop() {
    runners.forEach(ToolCallRunner::destroy);
    servers.forEach(McpServer::close);
  }

  @Test
  void aToolRunningWhenItsTaskIsCancelledIsInterruptedAndTheCallEndsCancelled() throws Exception {
    ScriptedTool tool = new ScriptedTool();
    tool.release = new CountDownLatch(1);
    ToolCallRunner runner = runner(PROPERTIES, Toolbox.of(List.of(tool), PROPERTIES.settings()));
    SubAgent cancelledOne = stored(subAgent());
    SubAgent otherTask = stored(subAgent());
    ToolCall call = stored(pending(cancelledOne, "search_docs", "{\"query\":\"slow\"}"));
    ToolCall other = stored(pending(otherTask, "search_docs", "{\"query\":\"slow too\"}"));
    assertThat(runner.onRequested(requested(call))).isTrue();
    assertThat(runner.onRequested(requested(other))).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> tool.executions.get() == 2);

    assertThat(runner.cancel(cancelledOne.taskId())).isEqualTo(1);

    assertThat(tool.interrupted.await(10, TimeUnit.SECONDS))
        .as("the tool was interrupted")
        .isTrue();
    ToolCall done = Runners.awaitAnswered(mongo, call);
    assertThat(done.status()).isEqualTo(ToolCallStatus.failed);
    assertThat(JSON.readTree(done.error()))
        .isEqualTo(
            JSON.readTree(
                "{\"error_type\":\"cancelled\","
                    + "\"message\":\"search_docs was stopped: its task was cancelled\"}"));
    assertThat(theToolMessageOf(call).content()).isEqualTo(done.error());
    assertThat(reload(other).status())
        .as("another task's call runs on")
        .isEqualTo(ToolCallStatus.running);
    tool.release.countDown();
    assertThat(Runners.awaitAnswered(mongo, other).status()).isEqualTo(ToolCallStatus.success);
    assertThat(tool.executions).as("no retry of a cancelled call").hasValue(2);
    assertThat(runner.cancel(cancelledOne.taskId())).as("nothing left to stop").isZero();
  }

  @Test
  void anMcpToolRunningWhenItsTaskIsCancelledIsCancelledAtTheServer() {
    McpTestServers.assumeAvailable();
    McpServer slow = started(new McpServer("slow", McpTestServers.slow(), PROPERTIES.settings()));
    Toolbox toolbox = new Toolbox(List.of(slow));
    ToolCallRunner runner = runner(PROPERTIES, toolbox);
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "slow__sleep", "{\"seconds\":600}"));
    assertThat(runner.onRequested(requested(call))).isTrue();
    await().atMost(Duration.ofSeconds(20)).until(() -> seen(toolbox).get("started").asInt() == 1);

    assertThat(runner.cancel(subAgent.taskId())).isEqualTo(1);

    ToolCall done = Runners.awaitAnswered(mongo, call);
    assertThat(done.status()).isEqualTo(ToolCallStatus.failed);
    assertThat(JSON.readTree(done.error()).get("error_type").asString()).isEqualTo("cancelled");
    await().atMost(Duration.ofSeconds(20)).until(() -> seen(toolbox).get("cancelled").size() == 1);
    assertThat(seen(toolbox).get("cancelled").get(0).asString())
        .isEqualTo("the tool call was stopped");
    assertThat(theToolMessageOf(call).content()).isEqualTo(done.error());
  }

  @Test
  void anMcpToolPastItsTimeoutIsCancelledAtTheServerToo() {
    McpTestServers.assumeAvailable();
    ToolCallProperties quickSleep =
        new ToolCallProperties(
                Duration.ofSeconds(60),
                Duration.ofSeconds(10),
                Map.of(
                    "slow__sleep", new ToolSettings.Override(Duration.ofMillis(500), null, null)))
            .withRetry(ToolCallRunnerTest.NO_RETRIES);
    McpServer slow = started(new McpServer("slow", McpTestServers.slow(), quickSleep.settings()));
    Toolbox toolbox = new Toolbox(List.of(slow));
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "slow__sleep", "{\"seconds\":600}"));

    runner(quickSleep, toolbox).onRequested(requested(call));

    ToolCall done = Runners.awaitAnswered(mongo, call);
    assertThat(JSON.readTree(done.error()).get("error_type").asString()).isEqualTo("timeout");
    await().atMost(Duration.ofSeconds(20)).until(() -> seen(toolbox).get("cancelled").size() == 1);
  }

  // --- helpers

  private ToolCallRunner runner(ToolCallProperties properties, Toolbox toolbox) {
    ToolCallRunner made = Runners.runner(mongo, published, AGENTS, properties, toolbox);
    runners.add(made);
    return made;
  }

  private McpServer started(McpServer server) {
    servers.add(server);
    server.start();
    return server;
  }

  /** What the slow server saw: {@code {"started":n,"cancelled":["reason",…]}}. */
  private static JsonNode seen(Toolbox toolbox) {
    return JSON.readTree(
        JSON.readTree(toolbox.run("slow__seen", "{}").json()).get("text").asString());
  }

  private static <T> T stored(T document) {
    return mongo.insert(document);
  }

  private static ToolCall reload(ToolCall call) {
    return mongo.findById(call.id(), ToolCall.class);
  }

  private static SubAgentMessage theToolMessageOf(ToolCall call) {
    List<SubAgentMessage> messages =
        mongo.find(
            Query.query(Criteria.where("subAgentId").is(call.subAgentId())), SubAgentMessage.class);
    assertThat(messages).hasSize(1);
    return messages.getFirst();
  }
}
