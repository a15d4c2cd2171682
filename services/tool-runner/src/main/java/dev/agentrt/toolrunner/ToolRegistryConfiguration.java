package dev.agentrt.toolrunner;

import dev.agentrt.toolrunner.calls.ToolCallProperties;
import dev.agentrt.toolrunner.mcp.McpProperties;
import dev.agentrt.toolrunner.mcp.McpServers;
import dev.agentrt.toolrunner.tools.BuiltInTools;
import dev.agentrt.toolrunner.tools.BuiltIns;
import dev.agentrt.toolrunner.tools.HttpProperties;
import dev.agentrt.toolrunner.tools.RuntimeTools;
import dev.agentrt.toolrunner.tools.ToolSource;
import dev.agentrt.toolrunner.tools.Toolbox;
import dev.agentrt.toolrunner.tools.WebSearchProperties;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The tool registry: the runtime's own tools ({@code ask_user}), the built-in tools, and the tools
 * of the configured MCP servers (connected here, at start-up).
 */
@Configuration(proxyBeanMethods = false)
class ToolRegistryConfiguration {

  @Bean
  McpServers mcpServers(McpProperties mcp, ToolCallProperties properties) {
    return new McpServers(mcp, properties);
  }

  @Bean
  Toolbox toolbox(
      @Value("${agentrt.tools.docs-root:docs}") Path docsRoot,
      @Value("${agentrt.tools.notes-root:data/notes}") Path notesRoot,
      HttpProperties http,
      WebSearchProperties webSearch,
      ToolCallProperties properties,
      McpServers mcpServers) {
    List<ToolSource> sources = new ArrayList<>();
    sources.add(new RuntimeTools());
    sources.add(
        new BuiltInTools(
            BuiltIns.configured(docsRoot, notesRoot, http, webSearch), properties.settings()));
    sources.addAll(mcpServers.all());
    return new Toolbox(sources);
  }
}
