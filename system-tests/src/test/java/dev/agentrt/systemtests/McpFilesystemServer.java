package dev.agentrt.systemtests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The npm filesystem reference server ({@code @modelcontextprotocol/server-filesystem}) as
 * tool-runner's MCP server {@code files}, over stdio, rooted at a folder of the test's: installed
 * by {@code npm ci} in {@code services/tool-runner/src/test/mcp} ({@code .ci/run} does it), like
 * tool-runner's own MCP tests. Its {@code write_file} is gated in tool-runner's configuration
 * ({@code approval: required}), written as a user would write it and given to the services with
 * {@code SPRING_CONFIG_ADDITIONAL_LOCATION}.
 */
final class McpFilesystemServer {

  /** The tool the model asks for: the server's {@code write_file}, prefixed with its name. */
  static final String WRITE_FILE = "files__write_file";

  private McpFilesystemServer() {}

  private static Path script(Path repoRoot) {
    return repoRoot
        .resolve("services/tool-runner/src/test/mcp/node_modules")
        .resolve("@modelcontextprotocol/server-filesystem/dist/index.js")
        .toAbsolutePath();
  }

  /** Why the server cannot run here (node or the npm package missing), or null when it can. */
  static @Nullable String missing(Path repoRoot) {
    String nodeMissing = NodeScript.nodeMissing();
    if (nodeMissing != null) {
      return nodeMissing;
    }
    if (!Files.isRegularFile(script(repoRoot))) {
      return "the MCP test servers are not installed: run `npm ci` in"
          + " services/tool-runner/src/test/mcp (.ci/run does it)";
    }
    return null;
  }

  /**
   * Writes tool-runner's configuration of the server, rooted at {@code root}, into {@code folder}.
   *
   * @return the file, for {@code SPRING_CONFIG_ADDITIONAL_LOCATION}
   */
  static Path configuration(Path repoRoot, Path root, Path folder) {
    String yaml =
        """
        agentrt:
          tools:
            mcp:
              servers:
                files:
                  command: node
                  args: ["%s", "%s"]
            overrides:
              "[%s]": { approval: required }
        """
            .formatted(script(repoRoot), root.toAbsolutePath(), WRITE_FILE);
    try {
      return Files.writeString(folder.resolve("tool-runner-mcp.yml"), yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
