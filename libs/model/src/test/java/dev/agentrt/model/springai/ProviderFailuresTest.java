package dev.agentrt.model.springai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.model.ModelException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProviderFailuresTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-01-01T12:00:00Z"), ZoneOffset.UTC);

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          400 | false | bad request
          401 | false | unauthorized (check the api-key)
          403 | false | permission denied
          404 | false | not found (check the base-url and the model)
          408 | true  | request timeout
          409 | true  | conflict
          413 | false | payload too large
          422 | false | unprocessable request
          429 | true  | rate limited
          500 | true  | server error
          503 | true  | server error
          529 | true  | overloaded
          """)
  void classifiesHttpStatus(int status, boolean transientFailure, String what) {
    ModelException failure = http(status, "");

    assertThat(failure.transientFailure()).isEqualTo(transientFailure);
    assertThat(failure.getMessage()).isEqualTo("m: HTTP " + status + " " + what);
  }

  @Test
  void saysWhenTheContextLengthIsExceeded() {
    ModelException failure = http(400, "This model's maximum context length is 8192 tokens");

    assertThat(failure.transientFailure()).isFalse();
    assertThat(failure.getMessage())
        .isEqualTo(
            "m: HTTP 400 context length exceeded: This model's maximum context length is 8192"
                + " tokens");
  }

  @Test
  void saysWhenContentIsFiltered() {
    ModelException failure =
        ProviderFailures.http(
            "m",
            400,
            null,
            "The response was filtered",
            Map.of("code", "content_filter"),
            new RuntimeException());

    assertThat(failure.transientFailure()).isFalse();
    assertThat(failure.getMessage())
        .isEqualTo("m: HTTP 400 content filtered: The response was filtered");
  }

  @Test
  void readsRetryAfterInSeconds() {
    assertThat(retryAfter(Map.of("retry-after", "2"))).isEqualTo(Duration.ofSeconds(2));
    assertThat(retryAfter(Map.of("retry-after", "1.5"))).isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void readsRetryAfterAsAnHttpDate() {
    assertThat(retryAfter(Map.of("retry-after", "Thu, 01 Jan 2026 12:00:30 GMT")))
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(retryAfter(Map.of("retry-after", "Thu, 01 Jan 2026 11:59:00 GMT")))
        .as("a date in the past")
        .isEqualTo(Duration.ZERO);
  }

  @Test
  void prefersRetryAfterMilliseconds() {
    assertThat(retryAfter(Map.of("retry-after-ms", "250", "retry-after", "1")))
        .isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void ignoresMissingOrUnreadableRetryAfter() {
    assertThat(retryAfter(Map.of())).isNull();
    assertThat(retryAfter(Map.of("retry-after", "soon"))).isNull();
  }

  @Test
  void showsRetryAfterInTheMessage() {
    ModelException failure =
        ProviderFailures.http(
            "m", 429, Duration.ofMillis(1500), "", Map.of(), new RuntimeException());

    assertThat(failure.getMessage()).isEqualTo("m: HTTP 429 rate limited (retry after 1.5 s)");
    assertThat(failure.retryAfter()).contains(Duration.ofMillis(1500));
  }

  @Test
  void failureBeforeTheRequestIsSentIsNotTransient() {
    ModelException failure =
        ProviderFailures.classify(
            "m", new IllegalArgumentException("unknown message role 'robot'"), CLOCK);

    assertThat(failure.transientFailure()).isFalse();
    assertThat(failure.getMessage())
        .isEqualTo(
            "m: the request failed: java.lang.IllegalArgumentException:"
                + " unknown message role 'robot'");
  }

  @Test
  void aCredentialTheProviderEchoesIsNotKeptInTheMessage() {
    ModelException failure =
        http(
            401,
            "Incorrect API key provided: sk-proj-abc123***wxyz. You can find your API key at"
                + " https://platform.openai.com/account/api-keys. Authorization: Bearer sk-live-9f8e7d"
                + " api_key=\"hunter2secret\"");

    assertThat(failure.getMessage())
        .doesNotContain("sk-proj", "abc123", "wxyz", "sk-live", "9f8e7d", "hunter2secret")
        .contains("HTTP 401 unauthorized")
        .contains("Incorrect API key provided: [redacted]");
  }

  private static ModelException http(int status, String detail) {
    return ProviderFailures.http("m", status, null, detail, Map.of(), new RuntimeException());
  }

  private static Duration retryAfter(Map<String, String> headers) {
    return ProviderFailures.retryAfter(
        name -> headers.containsKey(name) ? List.of(headers.get(name)) : List.of(), CLOCK);
  }
}
