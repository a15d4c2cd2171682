package dev.agentrt.agents;

import dev.agentrt.model.ToolSpec;
import java.util.List;
import java.util.Optional;

/**
 * The tools an agent can be given, as the model sees them. {@code ask_user} is special: the agent
 * loop handles it (the sub-agent waits for the person's answer); the others run in tool-runner.
 */
public final class ToolCatalog {

  public static final String ASK_USER = "ask_user";
  public static final String SEARCH_DOCS = "search_docs";
  public static final String READ_DOC = "read_doc";

  private static final List<ToolSpec> TOOLS =
      List.of(
          new ToolSpec(
              ASK_USER,
              "Ask the person a question when the task is unclear; the answer comes back as this"
                  + " call's result.",
              """
              {"type":"object","required":["question"],"additionalProperties":false,
               "properties":{"question":{"type":"string","minLength":1}}}"""),
          new ToolSpec(
              SEARCH_DOCS,
              "Search the documents for a subject. Returns {results: [{path, title, snippet,"
                  + " score}]}, best first.",
              """
              {"type":"object","required":["query"],"additionalProperties":false,
               "properties":{"query":{"type":"string","minLength":1},
                             "limit":{"type":"integer","minimum":1,"maximum":20}}}"""),
          new ToolSpec(
              READ_DOC,
              "Read one document found by search_docs. Returns {path, title, content}.",
              """
              {"type":"object","required":["path"],"additionalProperties":false,
               "properties":{"path":{"type":"string","minLength":1}}}"""));

  private ToolCatalog() {}

  public static List<ToolSpec> all() {
    return TOOLS;
  }

  public static Optional<ToolSpec> find(String name) {
    return TOOLS.stream().filter(t -> t.name().equals(name)).findFirst();
  }

  /** What a model may call for this agent: its declared tools and {@code ask_user}. */
  public static List<ToolSpec> forAgent(AgentDefinition agent) {
    return TOOLS.stream()
        .filter(t -> t.name().equals(ASK_USER) || agent.tools().contains(t.name()))
        .toList();
  }
}
