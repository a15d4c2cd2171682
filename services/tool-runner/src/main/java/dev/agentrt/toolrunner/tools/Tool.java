package dev.agentrt.toolrunner.tools;

import org.jspecify.annotations.Nullable;
import org.springframework.ai.tool.definition.ToolDefinition;
import tools.jackson.databind.JsonNode;

/**
 * A built-in tool: its definition (name, description, input JSON Schema) and its code. {@link
 * Toolbox} checks the arguments against the input schema before calling {@link #execute}, and the
 * result against the output schema when there is one.
 */
public interface Tool {

  String name();

  String description();

  /** The input JSON Schema, as JSON text. */
  String inputSchema();

  /** The output JSON Schema (JSON text) results are checked against, or null for none. */
  default @Nullable String outputSchema() {
    return null;
  }

  /**
   * Whether running the same call twice does no harm, so a call whose worker died may be run again.
   * A tool that changes the world can be, by recognising a re-run from the call's id ({@link
   * #execute(JsonNode, String)}).
   */
  default boolean idempotent() {
    return true;
  }

  /** Whether its calls wait for a person's approval unless configuration says otherwise. */
  default boolean approvalRequired() {
    return false;
  }

  /**
   * Runs the tool on arguments that satisfy its input schema.
   *
   * @return the result as JSON text
   * @throws ToolException for a failure the model should read (not found, bad path, …)
   */
  String execute(JsonNode arguments);

  /**
   * Runs the tool for one tool call. The call's id is the same every time the same call runs (again
   * after its worker died), and different for every other call, so a tool that must not take effect
   * twice recognises a re-run by it. Most tools need no id: this runs {@link #execute(JsonNode)}.
   *
   * @param toolCallId the id of the stored call this run is for
   */
  default String execute(JsonNode arguments, String toolCallId) {
    return execute(arguments);
  }

  /** The definition as Spring AI names it. */
  default ToolDefinition definition() {
    return ToolDefinition.builder()
        .name(name())
        .description(description())
        .inputSchema(inputSchema())
        .build();
  }
}
