package dev.agentrt.toolrunner.mcp;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code agentrt.tools.mcp.servers.<name>.*}: the MCP servers whose tools are offered, each either
 * a command started with stdio ({@code command}, {@code args}, {@code env}) or a streamable-HTTP
 * {@code url}. Their tools are named {@code <name>__<tool>}.
 */
@ConfigurationProperties("agentrt.tools.mcp")
public record McpProperties(Map<String, Server> servers) {

  /** Server names: no underscores, so {@code <server>__<tool>} splits one way only. */
  static final Pattern NAME = Pattern.compile("[a-zA-Z0-9-]{1,30}");

  /**
   * One server.
   *
   * @param timeout the default timeout of its tools (else {@code agentrt.tools.timeout})
   */
  public record Server(
      @Nullable String command,
      @Nullable List<String> args,
      @Nullable Map<String, String> env,
      @Nullable URI url,
      @Nullable Duration timeout) {

    public Server {
      args = args == null ? List.of() : List.copyOf(args);
      env = env == null ? Map.of() : Map.copyOf(env);
    }

    public static Server stdio(String command, List<String> args, @Nullable Duration timeout) {
      return new Server(command, args, Map.of(), null, timeout);
    }
  }

  public McpProperties {
    servers = servers == null ? Map.of() : Map.copyOf(servers);
    servers.forEach(
        (name, server) -> {
          if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                "agentrt.tools.mcp.servers: server name '"
                    + name
                    + "' must match "
                    + NAME.pattern()
                    + " (it prefixes its tools' names)");
          }
          boolean stdio = server.command() != null && !server.command().isBlank();
          if (stdio == (server.url() != null)) {
            throw new IllegalArgumentException(
                "agentrt.tools.mcp.servers." + name + ": give either command (stdio) or url");
          }
        });
  }
}
