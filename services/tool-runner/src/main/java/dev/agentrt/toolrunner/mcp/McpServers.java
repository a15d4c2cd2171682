package dev.agentrt.toolrunner.mcp;

import dev.agentrt.toolrunner.calls.ToolCallProperties;
import dev.agentrt.toolrunner.tools.ToolSettings;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The configured MCP servers: connected at start-up, connected again every {@code
 * agentrt.tools.mcp.reconnect-interval} (30 s) while down, closed (stdio ones stopped) at the end.
 */
public final class McpServers implements DisposableBean {

  private final List<McpServer> servers;

  public McpServers(McpProperties mcp, ToolCallProperties properties) {
    ToolSettings settings = properties.settings();
    List<McpServer> connected = new ArrayList<>();
    mcp.servers()
        .forEach(
            (name, server) -> {
              McpServer connection = new McpServer(name, server, settings);
              connection.start();
              connected.add(connection);
            });
    this.servers = List.copyOf(connected);
  }

  public List<McpServer> all() {
    return servers;
  }

  /** Connects again the servers that are down (never reached, or stopped), listing their tools. */
  @Scheduled(
      fixedDelayString = "${agentrt.tools.mcp.reconnect-interval:30s}",
      initialDelayString = "${agentrt.tools.mcp.reconnect-interval:30s}")
  public void reconnect() {
    servers.stream().filter(McpServer::down).forEach(McpServer::start);
  }

  @Override
  public void destroy() {
    servers.forEach(McpServer::close);
  }
}
