package dev.agentrt.model.springai;

import com.anthropic.errors.AnthropicInvalidDataException;
import com.anthropic.errors.AnthropicIoException;
import com.anthropic.errors.AnthropicRetryableException;
import com.anthropic.errors.AnthropicServiceException;
import com.openai.errors.OpenAIInvalidDataException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.OpenAIRetryableException;
import com.openai.errors.OpenAIServiceException;
import dev.agentrt.model.ModelException;
import java.io.InterruptedIOException;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Turns what the OpenAI and Anthropic SDKs throw into {@link ModelException}s that say whether
 * trying again may help, and how long the provider asked us to wait.
 *
 * <ul>
 *   <li>Transient: HTTP 408, 409, 429 and 5xx (as the SDKs' own retry rules), timeouts and other
 *       I/O failures (connection refused or reset), and a response body that cannot be read (a
 *       truncated body or a proxy's error page is usually a passing fault; the retry limit bounds
 *       the cost when it is not).
 *   <li>Not transient: every other HTTP status (400 — with "context length exceeded" or "content
 *       filtered" when the provider says so —, 401, 403, 404, 413, 422, …) and anything else, such
 *       as a request that cannot be built (an unknown role, a schema that is not JSON).
 * </ul>
 *
 * {@code Retry-After} is read in seconds or as an HTTP date; OpenAI's {@code retry-after-ms} wins
 * when present.
 */
final class ProviderFailures {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int MAX_DETAIL = 300;
  // What a provider may echo back of a credential: "Incorrect API key provided: sk-ab***yz".
  private static final Pattern CREDENTIAL =
      Pattern.compile(
          "(?i)(\\b(sk|pk|rk)-[A-Za-z0-9_*.\\-]{4,}|bearer\\s+\\S+"
              + "|(api[_-]?key|x-api-key|token|secret)[\"']?\\s*[:=]\\s*[\"']?[^\\s\"',}]+)");

  private ProviderFailures() {}

  /**
   * @param model names the model in the message, e.g. {@code openai model gpt-4o-mini}
   */
  static ModelException classify(String model, RuntimeException failure, Clock clock) {
    return switch (failure) {
      case OpenAIServiceException e ->
          http(
              model,
              e.statusCode(),
              retryAfter(e.headers()::values, clock),
              detail(e),
              e.body(),
              e);
      case AnthropicServiceException e ->
          http(
              model,
              e.statusCode(),
              retryAfter(e.headers()::values, clock),
              detail(e),
              e.body(),
              e);
      case OpenAIIoException e -> io(model, e);
      case AnthropicIoException e -> io(model, e);
      case OpenAIInvalidDataException e -> malformed(model, e);
      case AnthropicInvalidDataException e -> malformed(model, e);
      case OpenAIRetryableException e ->
          new ModelException(model + ": " + shortened(e.getMessage()), true, e);
      case AnthropicRetryableException e ->
          new ModelException(model + ": " + shortened(e.getMessage()), true, e);
      default ->
          new ModelException(
              model + ": the request failed: " + shortened(failure.toString()), false, failure);
    };
  }

  /**
   * @param detail the provider's error message, shown
   * @param body the error body, searched (with the detail) for signs of an exceeded context length
   *     or filtered content
   */
  static ModelException http(
      String model,
      int status,
      @Nullable Duration retryAfter,
      String detail,
      Object body,
      RuntimeException cause) {
    boolean transientFailure = status == 408 || status == 409 || status == 429 || status >= 500;
    String text = (detail + " " + body).toLowerCase(Locale.ROOT);
    String what =
        switch (status) {
          case 400 ->
              contextLengthExceeded(text)
                  ? "context length exceeded"
                  : contentFiltered(text) ? "content filtered" : "bad request";
          case 401 -> "unauthorized (check the api-key)";
          case 403 -> "permission denied";
          case 404 -> "not found (check the base-url and the model)";
          case 408 -> "request timeout";
          case 409 -> "conflict";
          case 413 -> "payload too large";
          case 422 -> "unprocessable request";
          case 429 -> "rate limited";
          case 529 -> "overloaded";
          default -> status >= 500 ? "server error" : "unexpected status";
        };
    StringBuilder message = new StringBuilder(model).append(": HTTP ").append(status);
    message.append(' ').append(what);
    if (retryAfter != null) {
      message.append(" (retry after ").append(seconds(retryAfter)).append(')');
    }
    if (!detail.isBlank()) {
      message.append(": ").append(shortened(detail));
    }
    return new ModelException(message.toString(), transientFailure, retryAfter, cause);
  }

  /**
   * How long the provider asked us to wait: {@code retry-after-ms}, else {@code Retry-After} in
   * seconds or as an HTTP date; null when it did not say (or said something unreadable).
   */
  static @Nullable Duration retryAfter(Function<String, List<String>> header, Clock clock) {
    List<String> millis = header.apply("retry-after-ms");
    if (!millis.isEmpty()) {
      try {
        return Duration.ofMillis(Math.round(Double.parseDouble(millis.getFirst().trim())));
      } catch (NumberFormatException e) {
        // fall through to Retry-After
      }
    }
    List<String> values = header.apply("retry-after");
    if (values.isEmpty()) {
      return null;
    }
    String value = values.getFirst().trim();
    try {
      return Duration.ofMillis(Math.round(Double.parseDouble(value) * 1000));
    } catch (NumberFormatException notSeconds) {
      try {
        Duration untilThen =
            Duration.between(
                clock.instant(),
                ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
        return untilThen.isNegative() ? Duration.ZERO : untilThen;
      } catch (DateTimeParseException notADate) {
        return null;
      }
    }
  }

  private static ModelException io(String model, RuntimeException failure) {
    boolean timeout = false;
    for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
      timeout |= cause instanceof InterruptedIOException || cause instanceof HttpTimeoutException;
    }
    String what =
        timeout ? "timed out" : "connection failed: " + shortened(rootCause(failure).getMessage());
    return new ModelException(model + ": " + what, true, failure);
  }

  private static ModelException malformed(String model, RuntimeException failure) {
    return new ModelException(
        model + ": malformed response: " + shortened(rootCause(failure).getMessage()),
        true,
        failure);
  }

  private static boolean contextLengthExceeded(String text) {
    return text.contains("context_length_exceeded")
        || text.contains("context length")
        || text.contains("context window")
        || text.contains("prompt is too long")
        || text.contains("too many tokens");
  }

  private static boolean contentFiltered(String text) {
    return text.contains("content_filter")
        || text.contains("content_policy")
        || text.contains("content management policy")
        || text.contains("safety system");
  }

  /**
   * The provider's error message: the SDKs' exception message ({@code "<status>: <message or
   * body>"}) without the status, and the body's {@code error.message} when it is the whole body.
   */
  private static String detail(RuntimeException e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    String withoutStatus = message.replaceFirst("^\\d{3}: ?", "");
    if (withoutStatus.startsWith("{")) {
      try {
        JsonNode errorMessage = JSON.readTree(withoutStatus).at("/error/message");
        if (errorMessage.isString()) {
          return errorMessage.asString();
        }
      } catch (RuntimeException notJson) {
        // the text as it is
      }
    }
    return withoutStatus;
  }

  private static Throwable rootCause(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return root;
  }

  private static String seconds(Duration duration) {
    return duration.toMillis() % 1000 == 0
        ? duration.toSeconds() + " s"
        : String.format(Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
  }

  /**
   * A provider's text as it may be stored on a task and shown to a person: on one line, anything
   * that looks like a credential replaced, at most {@value #MAX_DETAIL} characters.
   */
  static String shortened(@Nullable String text) {
    if (text == null) {
      return "";
    }
    String safe = CREDENTIAL.matcher(text.replaceAll("\\s+", " ").strip()).replaceAll("[redacted]");
    return safe.length() <= MAX_DETAIL ? safe : safe.substring(0, MAX_DETAIL) + "…";
  }
}
