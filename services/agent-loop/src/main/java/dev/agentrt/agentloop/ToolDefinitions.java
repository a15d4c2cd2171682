package dev.agentrt.agentloop;

import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.model.ToolSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * The tools a model may call for an agent, as tool-runner defines them: read from the {@code
 * tool_definitions} collection tool-runner keeps (built-in and MCP tools), kept for a few seconds
 * (an empty collection, before tool-runner has written it, is read again next time), filtered by
 * the agent's {@code tools} list ({@code <server>__*} covers a server's tools), with {@code
 * ask_user} always first.
 */
class ToolDefinitions {

  static final Duration CACHE_FOR = Duration.ofSeconds(5);

  private record Cached(List<ToolSpec> specs, Instant readAt) {}

  private final MongoTemplate mongo;
  private final Clock clock;
  private volatile Cached cached;

  ToolDefinitions(MongoTemplate mongo) {
    this(mongo, Clock.systemUTC());
  }

  ToolDefinitions(MongoTemplate mongo, Clock clock) {
    this.mongo = mongo;
    this.clock = clock;
  }

  List<ToolSpec> forAgent(AgentDefinition agent) {
    return ToolCatalog.forAgent(agent, defined());
  }

  /** The agent's tools, with {@code message_agent} naming its delegates when it has some. */
  List<ToolSpec> forAgent(AgentDefinition agent, List<AgentDefinition> delegates) {
    return ToolCatalog.forAgent(agent, defined(), delegates);
  }

  private List<ToolSpec> defined() {
    Instant now = clock.instant();
    Cached current = cached;
    if (current == null || current.readAt().plus(CACHE_FOR).isBefore(now)) {
      List<ToolSpec> specs = new ArrayList<>();
      for (Document d : mongo.getCollection(ToolCatalog.DEFINITIONS).find()) {
        specs.add(
            new ToolSpec(
                d.getString("_id"), d.getString("description"), d.getString("inputSchema")));
      }
      current = new Cached(List.copyOf(specs), now);
      cached = specs.isEmpty() ? null : current;
    }
    return current.specs();
  }
}
