package dev.agentrt.agents;

import dev.agentrt.model.ToolSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.bson.Document;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * The tools a model may call for an agent, as tool-runner defines them: read from the {@code
 * tool_definitions} collection tool-runner keeps (built-in and MCP tools), kept for a few seconds
 * (an empty collection, before tool-runner has written it, is read again next time), filtered by
 * the agent's {@code tools} list ({@code <server>__*} covers a server's tools), with {@code
 * ask_user} always first. The same read says which tools tool-runner gates for every agent ({@code
 * approval: required}).
 */
public class ToolDefinitions {

  public static final Duration CACHE_FOR = Duration.ofSeconds(5);

  private record Cached(List<ToolSpec> specs, Set<String> gated, Instant readAt) {}

  private final MongoTemplate mongo;
  private final Clock clock;
  private volatile Cached cached;

  public ToolDefinitions(MongoTemplate mongo) {
    this(mongo, Clock.systemUTC());
  }

  ToolDefinitions(MongoTemplate mongo, Clock clock) {
    this.mongo = mongo;
    this.clock = clock;
  }

  public List<ToolSpec> forAgent(AgentDefinition agent) {
    return ToolCatalog.forAgent(agent, defined());
  }

  /** The agent's tools, with {@code message_agent} naming its delegates when it has some. */
  public List<ToolSpec> forAgent(AgentDefinition agent, List<AgentDefinition> delegates) {
    return ToolCatalog.forAgent(agent, defined(), delegates);
  }

  /**
   * Whether a call of this tool by this agent waits for a person's approval: tool-runner gates the
   * tool for every agent, or the agent's {@code approve} list names it.
   */
  public boolean needsApproval(AgentDefinition agent, String tool) {
    return ToolCatalog.needsApproval(agent, tool, read().gated().contains(tool));
  }

  private List<ToolSpec> defined() {
    return read().specs();
  }

  private Cached read() {
    Instant now = clock.instant();
    Cached current = cached;
    if (current == null || current.readAt().plus(CACHE_FOR).isBefore(now)) {
      List<ToolSpec> specs = new ArrayList<>();
      Set<String> gated = new HashSet<>();
      for (Document d : mongo.getCollection(ToolCatalog.DEFINITIONS).find()) {
        specs.add(
            new ToolSpec(
                d.getString("_id"), d.getString("description"), d.getString("inputSchema")));
        if (ToolCatalog.APPROVAL_REQUIRED.equals(d.getString(ToolCatalog.APPROVAL))) {
          gated.add(d.getString("_id"));
        }
      }
      current = new Cached(List.copyOf(specs), Set.copyOf(gated), now);
      cached = specs.isEmpty() ? null : current;
    }
    return current;
  }
}
