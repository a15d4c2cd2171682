package dev.agentrt.toolrunner.tools;

import tools.jackson.databind.JsonNode;

/**
 * A built-in tool. Its name and input schema are declared in {@code ToolCatalog}; {@link Toolbox}
 * checks the arguments against that schema before calling {@link #execute}.
 */
public interface Tool {

  String name();

  /**
   * Runs the tool on arguments that satisfy its input schema.
   *
   * @return the result as JSON text
   * @throws ToolException for a failure the model should read (not found, bad path, …)
   */
  String execute(JsonNode arguments);
}
