package dev.agentrt.model;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The model could not answer. Transient failures (rate limits, 5xx, timeouts, connection resets)
 * may be retried; a provider's {@code Retry-After} says how long to wait first.
 */
public class ModelException extends RuntimeException {

  private final boolean transientFailure;
  private final @Nullable Duration retryAfter;

  public ModelException(
      String message, boolean transientFailure, @Nullable Duration retryAfter, Throwable cause) {
    super(message, cause);
    this.transientFailure = transientFailure;
    this.retryAfter = retryAfter;
  }

  public ModelException(String message, boolean transientFailure, Throwable cause) {
    this(message, transientFailure, null, cause);
  }

  public ModelException(String message, boolean transientFailure) {
    super(message);
    this.transientFailure = transientFailure;
    this.retryAfter = null;
  }

  public boolean transientFailure() {
    return transientFailure;
  }

  /** How long the provider asked us to wait before trying again, when it said. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }
}
