package dev.agentrt.toolrunner.tools;

/** A tool's failure that goes back to the model as a structured error. */
public class ToolException extends RuntimeException {

  private final ErrorType errorType;
  private final boolean transientFailure;

  public ToolException(ErrorType errorType, String message) {
    this(errorType, message, false);
  }

  /**
   * @param transientFailure whether trying again may succeed (a timeout, a connection error, a 5xx,
   *     an MCP server gone), so an idempotent tool is retried
   */
  public ToolException(ErrorType errorType, String message, boolean transientFailure) {
    super(message);
    this.errorType = errorType;
    this.transientFailure = transientFailure;
  }

  public ErrorType errorType() {
    return errorType;
  }

  public boolean transientFailure() {
    return transientFailure;
  }
}
