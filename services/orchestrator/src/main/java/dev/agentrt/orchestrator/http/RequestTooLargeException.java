package dev.agentrt.orchestrator.http;

import java.io.IOException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A request body of unknown length read past {@code agentrt.http.max-request-size}: thrown by the
 * body's stream, so the parser reading it stops there. The parser wraps it; {@link #in} finds it
 * again so the API can answer {@code 413}.
 */
public final class RequestTooLargeException extends IOException {

  RequestTooLargeException(long maxBytes) {
    super(RequestSizeLimit.reason(maxBytes), null);
  }

  /** This exception, if it is {@code failure} or one of its causes. */
  public static Optional<RequestTooLargeException> in(@Nullable Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof RequestTooLargeException tooLarge) {
        return Optional.of(tooLarge);
      }
    }
    return Optional.empty();
  }
}
