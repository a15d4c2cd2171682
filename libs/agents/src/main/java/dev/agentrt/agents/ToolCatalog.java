package dev.agentrt.agents;

import dev.agentrt.model.ToolSpec;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What agents may list as tools and who defines them. tool-runner owns the definitions of the tools
 * it runs (built-in ones and those of MCP servers) and writes them to the {@link #DEFINITIONS}
 * collection; {@code ask_user} is special: the agent loop handles it (the sub-agent waits for the
 * person's answer), every agent has it, and its definition is here.
 *
 * <p>An agent lists built-in tools by name ({@link #BUILT_IN}), MCP tools by their prefixed name
 * ({@code <server>__<tool>}), or all tools of one server as {@code <server>__*}.
 */
public final class ToolCatalog {

  /** The Mongo collection tool-runner keeps its tool definitions in, one document per tool. */
  public static final String DEFINITIONS = "tool_definitions";

  public static final String ASK_USER = "ask_user";
  public static final String MESSAGE_AGENT = "message_agent";
  public static final String SEARCH_DOCS = "search_docs";
  public static final String READ_DOC = "read_doc";
  public static final String CALCULATOR = "calculator";
  public static final String CURRENT_TIME = "current_time";
  public static final String HTTP_GET = "http_get";
  public static final String WEB_SEARCH = "web_search";
  public static final String WRITE_NOTE = "write_note";

  /** The tools tool-runner brings itself (some only when configured, e.g. web_search). */
  public static final Set<String> BUILT_IN =
      Set.of(SEARCH_DOCS, READ_DOC, CALCULATOR, CURRENT_TIME, HTTP_GET, WEB_SEARCH, WRITE_NOTE);

  /**
   * The field of a {@link #DEFINITIONS} document that says whether every call of the tool waits for
   * a person's approval: {@value #APPROVAL_REQUIRED} or {@value #APPROVAL_NONE}.
   */
  public static final String APPROVAL = "approval";

  public static final String APPROVAL_REQUIRED = "required";
  public static final String APPROVAL_NONE = "none";

  /** Separates an MCP server's name from its tool's name: {@code files__read_file}. */
  public static final String MCP_SEPARATOR = "__";

  /** A tool name as OpenAI-compatible APIs accept it. */
  public static final Pattern TOOL_NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");

  private static final Pattern MCP_NAME =
      Pattern.compile("[a-zA-Z0-9-]+" + MCP_SEPARATOR + "([a-zA-Z0-9_-]+|\\*)");

  public static final ToolSpec ASK_USER_SPEC =
      new ToolSpec(
          ASK_USER,
          "Ask the person a question when the task is unclear; the answer comes back as this"
              + " call's result. With options, the person picks one of them.",
          """
          {"type":"object","required":["question"],"additionalProperties":false,
           "properties":{"question":{"type":"string","minLength":1},
                         "options":{"type":"array","minItems":2,"maxItems":10,
                                    "items":{"type":"string","minLength":1}}}}""");

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private ToolCatalog() {}

  /**
   * {@code message_agent} for an agent with delegates: the agent loop starts (or, with a {@code
   * conversation_id}, wakes) a sub-agent of the named delegate with the message; its answer or
   * error comes back as this call's result, with the conversation's id.
   */
  public static ToolSpec messageAgentSpec(List<AgentDefinition> delegates) {
    StringBuilder description =
        new StringBuilder(
            "Send a message to another agent and get its answer as this call's result, with a"
                + " conversation_id. Calls made in one turn run at the same time. To send a later"
                + " message to the same agent, which keeps its whole conversation, pass that"
                + " conversation_id. Agents:");
    ObjectNode schema = JSON.createObjectNode().put("type", "object");
    schema.putArray("required").add("agent").add("message");
    schema.put("additionalProperties", false);
    ObjectNode properties = schema.putObject("properties");
    ArrayNode names = properties.putObject("agent").put("type", "string").putArray("enum");
    for (AgentDefinition delegate : delegates) {
      names.add(delegate.name());
      description
          .append("\n- ")
          .append(delegate.name())
          .append(": ")
          .append(delegate.description());
    }
    properties.putObject("message").put("type", "string").put("minLength", 1);
    properties.putObject("conversation_id").put("type", "string").put("minLength", 1);
    return new ToolSpec(MESSAGE_AGENT, description.toString(), schema.toString());
  }

  /** Whether an agents file may list this entry: a built-in name, an MCP name or wildcard. */
  public static boolean mayList(String entry) {
    return ASK_USER.equals(entry)
        || BUILT_IN.contains(entry)
        || entry.length() <= 64 && MCP_NAME.matcher(entry).matches();
  }

  /**
   * Whether the agent may call this tool: {@code ask_user}, a tool it lists, or a tool of a server
   * it lists as {@code <server>__*}.
   */
  public static boolean allows(AgentDefinition agent, String tool) {
    return ASK_USER.equals(tool) || covers(agent.tools(), tool);
  }

  /**
   * Whether a call of this tool waits for a person's approval: tool-runner's configuration gates it
   * for every agent ({@code gatedForAll}, from its definition), or the agent's {@code approve} list
   * names it ({@code <server>__*} covering a server's tools).
   */
  public static boolean needsApproval(AgentDefinition agent, String tool, boolean gatedForAll) {
    return !ASK_USER.equals(tool)
        && !MESSAGE_AGENT.equals(tool)
        && (gatedForAll || covers(agent.approve(), tool));
  }

  /** Whether a list of tool entries names this tool, or its server as {@code <server>__*}. */
  static boolean covers(List<String> entries, String tool) {
    if (entries.contains(tool)) {
      return true;
    }
    return entries.stream()
        .filter(t -> t.endsWith(MCP_SEPARATOR + "*"))
        .anyMatch(t -> tool.startsWith(t.substring(0, t.length() - 1)));
  }

  /** The tools the model may call for this agent among those defined, {@code ask_user} first. */
  public static List<ToolSpec> forAgent(AgentDefinition agent, List<ToolSpec> defined) {
    return forAgent(agent, defined, List.of());
  }

  /**
   * The tools the model may call for this agent: {@code ask_user} first, then {@code message_agent}
   * when it has delegates (given here, declared), then those defined that it lists.
   */
  public static List<ToolSpec> forAgent(
      AgentDefinition agent, List<ToolSpec> defined, List<AgentDefinition> delegates) {
    Stream<ToolSpec> runtime =
        delegates.isEmpty()
            ? Stream.of(ASK_USER_SPEC)
            : Stream.of(ASK_USER_SPEC, messageAgentSpec(delegates));
    return Stream.concat(
            runtime,
            defined.stream()
                .filter(
                    t ->
                        !ASK_USER.equals(t.name())
                            && !MESSAGE_AGENT.equals(t.name())
                            && allows(agent, t.name()))
                .sorted(Comparator.comparing(ToolSpec::name)))
        .toList();
  }
}
