package dev.agentrt.toolrunner.tools;

/** A tool's failure that goes back to the model as a structured error. */
public class ToolException extends RuntimeException {

  private final ErrorType errorType;

  public ToolException(ErrorType errorType, String message) {
    super(message);
    this.errorType = errorType;
  }

  public ErrorType errorType() {
    return errorType;
  }
}
