package dev.agentrt.toolrunner.tools;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.model.ToolContext;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The tool registry: every tool of every {@link ToolSource} by name, rebuilt when a source says its
 * list changed. Runs one call from its stored name and arguments: unknown names and arguments that
 * break the tool's input schema never reach the tool, a result breaking a declared output schema is
 * refused, and every failure comes back as a {@link ToolOutcome.Failure}, never as an exception.
 */
public class Toolbox {

  /** The key of the tool call's id in the {@link ToolContext} a tool is called with. */
  public static final String TOOL_CALL_ID = "toolCallId";

  private static final Logger log = LoggerFactory.getLogger(Toolbox.class);
  private static final JsonMapper MAPPER = JsonMapper.builder().build();
  private static final SchemaRegistry SCHEMAS =
      SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7);

  private record Entry(RegisteredTool tool, Schema inputSchema, @Nullable Schema outputSchema) {}

  private final List<ToolSource> sources;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile Map<String, Entry> tools = Map.of();

  public Toolbox(List<ToolSource> sources) {
    this.sources = List.copyOf(sources);
    this.sources.forEach(source -> source.onChange(this::refresh));
    refresh();
  }

  /** Only built-in tools. */
  public static Toolbox of(List<Tool> tools, ToolSettings settings) {
    return new Toolbox(List.of(new BuiltInTools(tools, settings)));
  }

  /** Reads every source again and tells the listeners. */
  public synchronized void refresh() {
    Map<String, Entry> fresh = new TreeMap<>();
    for (ToolSource source : sources) {
      for (RegisteredTool tool : source.tools()) {
        Entry entry;
        try {
          entry =
              new Entry(
                  tool,
                  SCHEMAS.getSchema(MAPPER.readTree(tool.definition().inputSchema())),
                  tool.outputSchema() == null
                      ? null
                      : SCHEMAS.getSchema(MAPPER.readTree(tool.outputSchema())));
        } catch (RuntimeException e) {
          log.warn(
              "tool {} ({}) left out: its schema is unusable: {}",
              tool.name(),
              tool.source(),
              e.toString());
          continue;
        }
        Entry before = fresh.putIfAbsent(tool.name(), entry);
        if (before != null) {
          log.warn(
              "tool {} of {} left out: {} has a tool of that name",
              tool.name(),
              tool.source(),
              before.tool().source());
        }
      }
    }
    tools = Map.copyOf(fresh);
    listeners.forEach(Runnable::run);
  }

  /** Runs the listener after every {@link #refresh}. */
  public void onChange(Runnable listener) {
    listeners.add(listener);
  }

  /** The names of the tools in the registry, sorted. */
  public List<String> names() {
    return tools.keySet().stream().sorted().toList();
  }

  /** Every tool in the registry, by name. */
  public List<RegisteredTool> tools() {
    return tools.values().stream()
        .map(Entry::tool)
        .sorted(Comparator.comparing(RegisteredTool::name))
        .toList();
  }

  public Optional<RegisteredTool> find(String name) {
    return Optional.ofNullable(tools.get(name)).map(Entry::tool);
  }

  /** {@link #run(String, String, String)} as a call of its own, with a fresh id. */
  public ToolOutcome run(String name, String arguments) {
    return run(name, arguments, UUID.randomUUID().toString());
  }

  /**
   * Runs the named tool on the arguments (a JSON object as text; blank means no arguments) for the
   * stored tool call {@code toolCallId}, which the tool is given in Spring AI's {@link ToolContext}
   * under {@link #TOOL_CALL_ID} (see {@link Tool#execute(JsonNode, String)}). Blocking; the caller
   * bounds the time it takes.
   */
  public ToolOutcome run(String name, String arguments, String toolCallId) {
    Entry entry = tools.get(name);
    if (entry == null || entry.tool().handledByRuntime()) {
      return new ToolOutcome.Failure(
          ErrorType.unknown_tool,
          "no tool named '" + name + "' runs here; available: " + String.join(", ", names()));
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
      return new ToolOutcome.Failure(ErrorType.invalid_arguments, describe(errors));
    }
    String result;
    try {
      result =
          entry
              .tool()
              .callback()
              .call(json.toString(), new ToolContext(Map.of(TOOL_CALL_ID, toolCallId)));
    } catch (ToolException e) {
      return new ToolOutcome.Failure(e.errorType(), e.getMessage(), e.transientFailure());
    } catch (RuntimeException e) {
      log.warn("tool {} failed", name, e);
      return new ToolOutcome.Failure(
          ErrorType.tool_error,
          e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
    if (entry.outputSchema() != null) {
      List<Error> broken;
      try {
        broken = entry.outputSchema().validate(MAPPER.readTree(result));
      } catch (JacksonException e) {
        return new ToolOutcome.Failure(
            ErrorType.invalid_output, name + " returned no JSON: " + e.getOriginalMessage());
      }
      if (!broken.isEmpty()) {
        return new ToolOutcome.Failure(
            ErrorType.invalid_output,
            name + " returned a result breaking its output schema: " + describe(broken));
      }
    }
    return new ToolOutcome.Success(result);
  }

  private static String describe(List<Error> errors) {
    return errors.stream().map(Toolbox::describe).collect(Collectors.joining("; "));
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
