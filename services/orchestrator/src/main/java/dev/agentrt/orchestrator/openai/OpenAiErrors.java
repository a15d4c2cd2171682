package dev.agentrt.orchestrator.openai;

import dev.agentrt.orchestrator.http.OpenAiCompatible;
import dev.agentrt.orchestrator.http.RequestTooLargeException;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.FieldError;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the controllers of the OpenAI-compatible API ({@link OpenAiCompatible}: the completions,
 * {@code /v1/orchestration/{chatId}/feedback}) refuse, in OpenAI's error shape {@code
 * {"error":{"message","type","param"?,"code"?}}}, never a stack trace. Ahead of the chat API's
 * problem details ({@code ApiErrors}), for those controllers only.
 */
@RestControllerAdvice(annotations = OpenAiCompatible.class)
@Order(Ordered.HIGHEST_PRECEDENCE)
public class OpenAiErrors {

  private static final Logger log = LoggerFactory.getLogger(OpenAiErrors.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @ExceptionHandler(OpenAiException.class)
  ResponseEntity<ObjectNode> refused(OpenAiException e) {
    return error(e, null, HttpHeaders.EMPTY);
  }

  /**
   * What the shared parts refuse (too many messages in the chat, too many streams), with its status
   * and headers; a {@code 429} as OpenAI's own rate limit, so OpenAI clients back off and retry.
   */
  @ExceptionHandler(ErrorResponseException.class)
  ResponseEntity<ObjectNode> refused(ErrorResponseException e) {
    HttpStatus status = HttpStatus.valueOf(e.getStatusCode().value());
    boolean rateLimited = status == HttpStatus.TOO_MANY_REQUESTS;
    String detail = e.getBody().getDetail();
    return error(
        new OpenAiException(
            status,
            detail == null ? status.getReasonPhrase() : detail,
            rateLimited ? "requests" : OpenAiException.INVALID_REQUEST,
            null,
            rateLimited ? "rate_limit_exceeded" : null),
        null,
        e.getHeaders());
  }

  /** A body breaking its declared constraints ({@code @Valid}): the fields and what is wrong. */
  @ExceptionHandler(MethodArgumentNotValidException.class)
  ResponseEntity<ObjectNode> invalid(MethodArgumentNotValidException e) {
    List<FieldError> fields = e.getBindingResult().getFieldErrors();
    String detail =
        fields.stream()
            .map(f -> f.getField() + ": " + f.getDefaultMessage())
            .sorted()
            .collect(Collectors.joining("; "));
    return error(
        OpenAiException.invalid(detail, fields.size() == 1 ? fields.getFirst().getField() : null),
        null,
        HttpHeaders.EMPTY);
  }

  /** A body that could not be read: a chunked body past the size limit ({@code 413}) or cut off. */
  @ExceptionHandler(HttpMessageNotReadableException.class)
  ResponseEntity<ObjectNode> unreadable(HttpMessageNotReadableException e) {
    OpenAiException refusal =
        RequestTooLargeException.in(e)
            .map(
                tooLarge ->
                    new OpenAiException(
                        HttpStatus.CONTENT_TOO_LARGE,
                        tooLarge.getMessage(),
                        OpenAiException.INVALID_REQUEST,
                        null,
                        "request_too_large"))
            .orElseGet(() -> OpenAiException.invalid("the request body could not be read", null));
    return error(refusal, null, HttpHeaders.EMPTY);
  }

  @ExceptionHandler(Exception.class)
  ResponseEntity<ObjectNode> failed(Exception e) {
    log.error("OpenAI-compatible request failed", e);
    return error(
        new OpenAiException(
            HttpStatus.INTERNAL_SERVER_ERROR,
            "the request could not be completed: " + e.getClass().getSimpleName(),
            "server_error",
            null,
            null),
        null,
        HttpHeaders.EMPTY);
  }

  /** The refusal as OpenAI answers one; the chat it concerns, if any, in {@code X-Chat-Id}. */
  static ResponseEntity<ObjectNode> error(
      OpenAiException e, @Nullable String chatId, HttpHeaders headers) {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode error = body.putObject("error").put("message", e.getMessage()).put("type", e.type());
    if (e.param() != null) {
      error.put("param", e.param());
    }
    if (e.code() != null) {
      error.put("code", e.code());
    }
    ResponseEntity.BodyBuilder response =
        ResponseEntity.status(e.status()).contentType(MediaType.APPLICATION_JSON).headers(headers);
    if (chatId != null) {
      response.header(OpenAiController.CHAT_ID, chatId);
    }
    return response.body(body);
  }
}
