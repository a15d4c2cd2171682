package dev.agentrt.orchestrator.openai;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;

/**
 * A request the OpenAI-compatible API refuses, answered with an OpenAI-style error body: {@code
 * {"error":{"message","type","param"?,"code"?}}}.
 */
class OpenAiException extends RuntimeException {

  static final String INVALID_REQUEST = "invalid_request_error";

  private final HttpStatus status;
  private final String type;
  private final @Nullable String param;
  private final @Nullable String code;

  OpenAiException(
      HttpStatus status,
      String message,
      String type,
      @Nullable String param,
      @Nullable String code) {
    super(message, null, false, false);
    this.status = status;
    this.type = type;
    this.param = param;
    this.code = code;
  }

  static OpenAiException invalid(String message, @Nullable String param) {
    return new OpenAiException(HttpStatus.BAD_REQUEST, message, INVALID_REQUEST, param, null);
  }

  HttpStatus status() {
    return status;
  }

  String type() {
    return type;
  }

  @Nullable String param() {
    return param;
  }

  @Nullable String code() {
    return code;
  }
}
