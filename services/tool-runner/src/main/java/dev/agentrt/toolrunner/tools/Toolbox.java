package dev.agentrt.toolrunner.tools;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.model.ToolSpec;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The tools this service runs, by name. Runs one call from its stored name and arguments: unknown
 * names and arguments that break the tool's input schema (from {@link ToolCatalog}) never reach the
 * tool, and every failure comes back as a {@link ToolOutcome.Failure}, never as an exception.
 */
public class Toolbox {

  private static final Logger log = LoggerFactory.getLogger(Toolbox.class);
  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private record Entry(Tool tool, Schema inputSchema) {}

  private final Map<String, Entry> tools = new TreeMap<>();

  public Toolbox(List<Tool> tools) {
    SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7);
    for (Tool tool : tools) {
      ToolSpec spec =
          ToolCatalog.find(tool.name())
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "tool " + tool.name() + " is not declared in ToolCatalog"));
      Schema schema = registry.getSchema(MAPPER.readTree(spec.inputSchema()));
      if (this.tools.put(tool.name(), new Entry(tool, schema)) != null) {
        throw new IllegalStateException("two tools named " + tool.name());
      }
    }
  }

  /** The names of the tools this box runs, sorted. */
  public List<String> names() {
    return List.copyOf(tools.keySet());
  }

  /**
   * Runs the named tool on the arguments (a JSON object as text; blank means no arguments).
   * Blocking; the caller bounds the time it takes.
   */
  public ToolOutcome run(String name, String arguments) {
    Entry entry = tools.get(name);
    if (entry == null) {
      return new ToolOutcome.Failure(
          ErrorType.unknown_tool,
          "no tool named '" + name + "'; available: " + String.join(", ", tools.keySet()));
    }
    JsonNode json;
    try {
      json = MAPPER.readTree(arguments == null || arguments.isBlank() ? "{}" : arguments);
    } catch (JacksonException e) {
      return new ToolOutcome.Failure(
          ErrorType.invalid_arguments, "arguments are not JSON: " + e.getOriginalMessage());
    }
    List<Error> errors = entry.inputSchema().validate(json);
    if (!errors.isEmpty()) {
      return new ToolOutcome.Failure(
          ErrorType.invalid_arguments,
          errors.stream().map(Toolbox::describe).collect(Collectors.joining("; ")));
    }
    try {
      return new ToolOutcome.Success(entry.tool().execute(json));
    } catch (ToolException e) {
      return new ToolOutcome.Failure(e.errorType(), e.getMessage());
    } catch (RuntimeException e) {
      log.warn("tool {} failed", name, e);
      return new ToolOutcome.Failure(
          ErrorType.tool_error,
          e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
  }

  /** "field 'query': required property 'query' not found": the field first, then what is wrong. */
  private static String describe(Error error) {
    String path = error.getInstanceLocation().toString().replaceFirst("^[$/.]+", "");
    if (error.getProperty() != null
        && ("required".equals(error.getKeyword())
            || "additionalProperties".equals(error.getKeyword()))) {
      path = path.isEmpty() ? error.getProperty() : path + "/" + error.getProperty();
    }
    String field = path.isEmpty() ? "arguments" : "field '" + path.replace('/', '.') + "'";
    return field + ": " + error.getMessage();
  }
}
