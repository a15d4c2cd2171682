package dev.agentrt.toolrunner.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.toolrunner.tools.ErrorType;
import dev.agentrt.toolrunner.tools.RegisteredTool;
import dev.agentrt.toolrunner.tools.ToolOutcome;
import dev.agentrt.toolrunner.tools.ToolSettings;
import dev.agentrt.toolrunner.tools.Toolbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * MCP servers from npm, started over stdio through the MCP Java SDK: their tools discovered under
 * prefixed names, called with arguments, their errors and their death read as tool errors.
 */
class McpServerTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final ToolSettings SETTINGS = ToolSettings.defaults(Duration.ofSeconds(30));

  @TempDir Path scratch;
  private final List<McpServer> started = new ArrayList<>();

  @BeforeEach
  void needsNode() {
    McpTestServers.assumeAvailable();
  }

  @AfterEach
  void stop() {
    started.forEach(McpServer::close);
  }

  private McpServer start(String name, McpProperties.Server config) {
    McpServer server = new McpServer(name, config, SETTINGS);
    started.add(server);
    server.start();
    return server;
  }

  @Test
  void discoversEachServersToolsUnderItsPrefix() {
    McpServer files = start("files", McpTestServers.filesystem(scratch));
    McpServer everything = start("everything", McpTestServers.everything(null));
    Toolbox toolbox = new Toolbox(List.of(files, everything));

    assertThat(toolbox.names())
        .contains(
            "files__read_text_file",
            "files__write_file",
            "everything__get-sum",
            "everything__echo");
    for (RegisteredTool tool : toolbox.tools()) {
      assertThat(tool.name()).matches(ToolCatalog.TOOL_NAME);
      assertThat(JSON.readTree(tool.definition().inputSchema()).get("type").asString())
          .isEqualTo("object");
      assertThat(tool.definition().description()).isNotBlank();
      assertThat(tool.source()).startsWith("mcp:");
    }
    RegisteredTool sum = toolbox.find("everything__get-sum").orElseThrow();
    assertThat(sum.idempotent()).as("declares idempotentHint").isTrue();
    assertThat(sum.timeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(toolbox.find("files__move_file").orElseThrow().idempotent()).isFalse();
  }

  @Test
  void aListChangedNotificationRefreshesTheRegistry() {
    // changing-server.mjs registers a tool when add_tool is called, and announces it with
    // notifications/tools/list_changed; the registry reads the list again.
    McpServer changing = new McpServer("changing", McpTestServers.changing(), SETTINGS);
    started.add(changing);
    Toolbox toolbox = new Toolbox(List.of(changing));
    List<List<String>> seen = new CopyOnWriteArrayList<>();
    toolbox.onChange(() -> seen.add(toolbox.names()));
    changing.start();
    assertThat(toolbox.names()).contains("changing__add_tool").doesNotContain("changing__late");

    ToolOutcome added = toolbox.run("changing__add_tool", "{\"name\":\"late\"}");

    assertThat(added).isInstanceOf(ToolOutcome.Success.class);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(toolbox.names()).contains("changing__late"));
    assertThat(seen.getLast()).contains("changing__add_tool", "changing__late");
    assertThat(toolbox.run("changing__late", "{}").json()).contains("hello from late");
  }

  @Test
  void aServerThatStoppedIsConnectedAgainByTheReconnect() {
    McpServers servers =
        new McpServers(
            new McpProperties(java.util.Map.of("everything", McpTestServers.everything(null))),
            new dev.agentrt.toolrunner.calls.ToolCallProperties(
                Duration.ofSeconds(30), Duration.ofSeconds(10)));
    try {
      McpServer everything = servers.all().getFirst();
      assertThat(everything.down()).isFalse();

      assertThat(McpTestServers.kill(McpTestServers.EVERYTHING)).isEqualTo(1);
      await().atMost(Duration.ofSeconds(30)).until(everything::down);
      servers.reconnect();

      assertThat(everything.down()).isFalse();
      Toolbox toolbox = new Toolbox(List.of(everything));
      assertThat(
              JSON.readTree(toolbox.run("everything__get-sum", "{\"a\":5,\"b\":5}").json())
                  .get("text")
                  .asString())
          .contains("10");
    } finally {
      servers.destroy();
    }
  }

  @Test
  void callsMadeAtTheSameTimeToOneStdioServerAllSucceed() throws Exception {
    // The SDK's stdio transport refused a message sent while another thread was sending one
    // ("Failed to enqueue message"): concurrent calls failed now and then, and so did a connect
    // whose listing met the SDK's own after the server's list_changed. Sends are serialized now.
    Toolbox toolbox = new Toolbox(List.of(start("everything", McpTestServers.everything(null))));
    int calls = 40;
    CyclicBarrier together = new CyclicBarrier(calls);
    List<Future<ToolOutcome>> outcomes = new ArrayList<>();
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < calls; i++) {
        String arguments = "{\"a\":" + i + ",\"b\":1000}";
        outcomes.add(
            threads.submit(
                () -> {
                  together.await();
                  return toolbox.run("everything__get-sum", arguments);
                }));
      }
      for (int i = 0; i < calls; i++) {
        ToolOutcome outcome = outcomes.get(i).get(60, TimeUnit.SECONDS);
        assertThat(outcome).as(outcome.json()).isInstanceOf(ToolOutcome.Success.class);
        assertThat(JSON.readTree(outcome.json()).get("text").asString())
            .contains(String.valueOf(1000 + i));
      }
    }
  }

  @Test
  void aServerThatCannotBeStartedOffersNoToolsAndStaysDown() {
    McpServer missing =
        start(
            "missing",
            McpProperties.Server.stdio(
                "node", List.of(scratch.resolve("no-such-server.js").toString()), null));

    assertThat(missing.tools()).isEmpty();
    assertThat(missing.down()).isTrue();
  }

  @Test
  void callsAToolWithArguments() throws Exception {
    Files.writeString(scratch.resolve("notes.txt"), "kafka partitions keep order");
    Toolbox toolbox =
        new Toolbox(
            List.of(
                start("files", McpTestServers.filesystem(scratch)),
                start("everything", McpTestServers.everything(null))));

    ToolOutcome sum = toolbox.run("everything__get-sum", "{\"a\":2,\"b\":40}");
    ToolOutcome read =
        toolbox.run(
            "files__read_text_file",
            JSON.createObjectNode()
                .put("path", scratch.resolve("notes.txt").toString())
                .toString());

    assertThat(sum).isInstanceOf(ToolOutcome.Success.class);
    assertThat(JSON.readTree(sum.json()).get("text").asString()).contains("42");
    assertThat(JSON.readTree(read.json()).toString()).contains("kafka partitions keep order");
  }

  @Test
  void reachesAServerOverStreamableHttp() throws Exception {
    int port;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      port = free.getLocalPort();
    }
    ProcessBuilder builder =
        new ProcessBuilder("node", McpTestServers.EVERYTHING.toString(), "streamableHttp")
            .redirectErrorStream(true);
    builder.environment().put("PORT", String.valueOf(port));
    Process http = builder.start();
    try {
      java.io.BufferedReader log =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(
                  http.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
      String line;
      while ((line = log.readLine()) != null && !line.contains("listening on port")) {
        // wait for the server to listen
      }
      assertThat(line).as("the server says it listens").isNotNull();
      Thread.ofVirtual().start(() -> log.lines().forEach(l -> {}));
      McpServer server =
          start(
              "remote",
              new McpProperties.Server(
                  null,
                  null,
                  null,
                  java.net.URI.create("http://127.0.0.1:" + port + "/mcp"),
                  null));
      Toolbox toolbox = new Toolbox(List.of(server));

      assertThat(toolbox.names()).contains("remote__get-sum", "remote__echo");
      assertThat(
              JSON.readTree(toolbox.run("remote__get-sum", "{\"a\":3,\"b\":4}").json())
                  .get("text")
                  .asString())
          .contains("7");
    } finally {
      http.destroyForcibly();
    }
  }

  @Test
  void argumentsBreakingTheServersSchemaNeverReachIt() {
    Toolbox toolbox = new Toolbox(List.of(start("everything", McpTestServers.everything(null))));

    ToolOutcome outcome = toolbox.run("everything__get-sum", "{\"a\":\"two\"}");

    assertThat(((ToolOutcome.Failure) outcome).errorType()).isEqualTo(ErrorType.invalid_arguments);
  }

  @Test
  void anErrorFromTheServerIsAToolError() {
    Toolbox toolbox = new Toolbox(List.of(start("files", McpTestServers.filesystem(scratch))));

    ToolOutcome outcome =
        toolbox.run(
            "files__read_text_file", JSON.createObjectNode().put("path", "/etc/passwd").toString());

    assertThat(outcome).isInstanceOf(ToolOutcome.Failure.class);
    ToolOutcome.Failure failure = (ToolOutcome.Failure) outcome;
    assertThat(failure.errorType()).isEqualTo(ErrorType.tool_error);
    assertThat(failure.message()).containsIgnoringCase("denied");
    assertThat(failure.transientFailure()).as("the server's own answer: not retried").isFalse();
  }

  @Test
  void aServerThatDiesMidCallFailsTheCallAndIsStartedAgainForTheNext() throws Exception {
    Toolbox toolbox = new Toolbox(List.of(start("everything", McpTestServers.everything(null))));

    CompletableFuture<ToolOutcome> call =
        CompletableFuture.supplyAsync(
            () ->
                toolbox.run(
                    "everything__trigger-long-running-operation",
                    "{\"duration\":60,\"steps\":60}"));
    assertThat(McpTestServers.kill(McpTestServers.EVERYTHING)).isEqualTo(1);
    ToolOutcome outcome = call.get(60, TimeUnit.SECONDS);

    assertThat(outcome).isInstanceOf(ToolOutcome.Failure.class);
    ToolOutcome.Failure failure = (ToolOutcome.Failure) outcome;
    assertThat(failure.errorType()).isEqualTo(ErrorType.tool_error);
    assertThat(failure.message()).contains("MCP server everything");
    assertThat(failure.transientFailure()).as("a server gone may come back: retried").isTrue();
    JsonNode again = JSON.readTree(toolbox.run("everything__get-sum", "{\"a\":1,\"b\":1}").json());
    assertThat(again.get("text").asString()).contains("2");
  }
}
