package dev.agentrt.toolrunner.tools;

import tools.jackson.databind.json.JsonMapper;

/** How a tool call ended: a result, or an error the model can read. Both are JSON text. */
public sealed interface ToolOutcome {

  /** What the tool message carries as its content. */
  String json();

  record Success(String json) implements ToolOutcome {}

  /**
   * {@code {"error_type":"...","message":"..."}}.
   *
   * @param transientFailure whether trying again may succeed (a timeout, a connection error, a 5xx,
   *     an MCP server gone); never shown to the model
   */
  record Failure(ErrorType errorType, String message, boolean transientFailure)
      implements ToolOutcome {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    /** A failure that trying again would not change (bad input, not allowed, a 4xx, …). */
    public Failure(ErrorType errorType, String message) {
      this(errorType, message, false);
    }

    @Override
    public String json() {
      return MAPPER
          .createObjectNode()
          .put("error_type", errorType.name())
          .put("message", message)
          .toString();
    }
  }
}
