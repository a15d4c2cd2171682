package dev.agentrt.toolrunner.tools;

import tools.jackson.databind.json.JsonMapper;

/** How a tool call ended: a result, or an error the model can read. Both are JSON text. */
public sealed interface ToolOutcome {

  /** What the tool message carries as its content. */
  String json();

  record Success(String json) implements ToolOutcome {}

  /** {@code {"error_type":"...","message":"..."}}. */
  record Failure(ErrorType errorType, String message) implements ToolOutcome {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

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
