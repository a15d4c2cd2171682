package dev.agentrt.model;

/** The model could not answer. Transient failures (rate limits, 5xx, timeouts) may be retried. */
public class ModelException extends RuntimeException {

  private final boolean transientFailure;

  public ModelException(String message, boolean transientFailure, Throwable cause) {
    super(message, cause);
    this.transientFailure = transientFailure;
  }

  public ModelException(String message, boolean transientFailure) {
    super(message);
    this.transientFailure = transientFailure;
  }

  public boolean transientFailure() {
    return transientFailure;
  }
}
