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
  /** The agent does not list that tool. */
  not_allowed,
  /** What the arguments name does not exist (a document, …). */
  not_found,
  /** The tool did not finish within its timeout. */
  timeout,
  /** The worker running it died and the tool is not idempotent: it was not run again. */
  interrupted,
  /** Its task was cancelled while it ran: it was stopped (an MCP server is told so). */
  cancelled,
  /** The tool's result breaks its declared output schema. */
  invalid_output,
  /** The tool itself failed (an MCP server's error, a refused URL, …). */
  tool_error
}
