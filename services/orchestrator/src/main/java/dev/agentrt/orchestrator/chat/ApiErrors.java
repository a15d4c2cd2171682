package dev.agentrt.orchestrator.chat;

import dev.agentrt.orchestrator.http.RequestTooLargeException;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Bad requests answer with a problem detail (RFC 9457) whose {@code detail} says what is wrong and
 * where, never a stack trace: a body that is not JSON {@code 400}, a chunked body read past the
 * size limit {@code 413}; refusals thrown as {@code ErrorResponseException} ({@code 429} with
 * {@code Retry-After}, say) keep their status and headers.
 */
@RestControllerAdvice
class ApiErrors extends ResponseEntityExceptionHandler {

  @Override
  protected @Nullable ResponseEntity<Object> handleMethodArgumentNotValid(
      MethodArgumentNotValidException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    String detail =
        ex.getBindingResult().getFieldErrors().stream()
            .map(e -> e.getField() + ": " + e.getDefaultMessage())
            .sorted()
            .collect(Collectors.joining("; "));
    return ResponseEntity.badRequest().body(ProblemDetail.forStatusAndDetail(status, detail));
  }

  @Override
  protected @Nullable ResponseEntity<Object> handleHttpMessageNotReadable(
      HttpMessageNotReadableException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    var tooLarge = RequestTooLargeException.in(ex);
    if (tooLarge.isPresent()) {
      HttpStatus contentTooLarge = HttpStatus.CONTENT_TOO_LARGE;
      return ResponseEntity.status(contentTooLarge)
          .body(ProblemDetail.forStatusAndDetail(contentTooLarge, tooLarge.get().getMessage()));
    }
    return ResponseEntity.badRequest()
        .body(
            ProblemDetail.forStatusAndDetail(
                HttpStatus.BAD_REQUEST, "request body is missing or is not valid JSON"));
  }
}
