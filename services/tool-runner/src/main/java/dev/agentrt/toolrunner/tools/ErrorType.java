package dev.agentrt.toolrunner.tools;

/**
 * Why a tool call failed, as the model reads it in {@code error_type}. Constants are spelled as
 * they appear in the error JSON.
 */
public enum ErrorType {
  /** The arguments are not a JSON object or do not satisfy the tool's input schema. */
  invalid_arguments,
  /** No tool of that name runs here. */
  unknown_tool,
  /** What the arguments name does not exist (a document, …). */
  not_found,
  /** The tool did not finish within {@code agentrt.tools.timeout}. */
  timeout,
  /** The tool itself failed. */
  tool_error
}
