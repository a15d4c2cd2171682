package dev.agentrt.toolrunner.mcp;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The real MCP servers from npm the tests start over stdio, installed by {@code npm ci} in {@code
 * src/test/mcp} ({@code .ci/run} does it). Tests skip, saying why, where node or the packages are
 * missing.
 */
public final class McpTestServers {

  static final Path MODULES = Path.of("src/test/mcp/node_modules").toAbsolutePath();
  static final Path EVERYTHING =
      MODULES.resolve("@modelcontextprotocol/server-everything/dist/index.js");
  static final Path FILESYSTEM =
      MODULES.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");

  public static void assumeAvailable() {
    assumeTrue(
        nodeRuns(), "node is not installed: the MCP tests need node 20+ (.ci/run installs it)");
    assumeTrue(
        Files.isRegularFile(EVERYTHING) && Files.isRegularFile(FILESYSTEM),
        "the MCP test servers are not installed: run `npm ci` in services/tool-runner/src/test/mcp"
            + " (.ci/run does it)");
  }

  /**
   * {@code changing-server.mjs}: a server whose tool list grows when {@code add_tool} is called.
   */
  public static McpProperties.Server changing() {
    return McpProperties.Server.stdio(
        "node", List.of(MODULES.resolveSibling("changing-server.mjs").toString()), null);
  }

  /** {@code big-result-server.mjs}: {@code text_of_size {bytes}} answers that much text. */
  public static McpProperties.Server big() {
    return McpProperties.Server.stdio(
        "node", List.of(MODULES.resolveSibling("big-result-server.mjs").toString()), null);
  }

  /**
   * {@code slow-server.mjs}: {@code sleep {seconds}} waits until cancelled; {@code seen} answers
   * {@code {"started":n,"cancelled":["reason",…]}}.
   */
  public static McpProperties.Server slow() {
    return McpProperties.Server.stdio(
        "node", List.of(MODULES.resolveSibling("slow-server.mjs").toString()), null);
  }

  /** {@code @modelcontextprotocol/server-everything} over stdio. */
  public static McpProperties.Server everything(@Nullable Duration timeout) {
    return McpProperties.Server.stdio("node", List.of(EVERYTHING.toString(), "stdio"), timeout);
  }

  /** {@code @modelcontextprotocol/server-filesystem} over stdio, allowed to see one folder. */
  public static McpProperties.Server filesystem(Path root) {
    return McpProperties.Server.stdio(
        "node", List.of(FILESYSTEM.toString(), root.toString()), null);
  }

  /** Kills the stdio server processes this JVM started running this script. */
  public static int kill(Path script) {
    List<ProcessHandle> servers =
        ProcessHandle.current()
            .descendants()
            .filter(
                p ->
                    p.info()
                        .arguments()
                        .map(a -> String.join(" ", a))
                        .orElse("")
                        .contains(script.toString()))
            .toList();
    servers.forEach(ProcessHandle::destroyForcibly);
    return servers.size();
  }

  private static boolean nodeRuns() {
    try {
      Process node = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
      node.getInputStream().readAllBytes();
      return node.waitFor(20, TimeUnit.SECONDS) && node.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private McpTestServers() {}
}
