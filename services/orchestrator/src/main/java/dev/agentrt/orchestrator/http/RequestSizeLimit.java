package dev.agentrt.orchestrator.http;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Bounds every request body to {@code agentrt.http.max-request-size} (default 1 MiB), on every
 * endpoint, before anything parses it. Tomcat's own limits do not cover this: {@code
 * server.tomcat.max-http-form-post-size} counts only form posts, {@code spring.servlet.multipart.*}
 * only multipart uploads.
 *
 * <p>A declared {@code Content-Length} over the limit is answered {@code 413} here, without reading
 * a byte. A body of unknown length (chunked) goes on with a stream that throws {@link
 * RequestTooLargeException} once it has read past the limit; the API's error handling answers that
 * {@code 413} in its own shape.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class RequestSizeLimit extends OncePerRequestFilter {

  static final String PROPERTY = "agentrt.http.max-request-size";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final long maxBytes;

  RequestSizeLimit(@Value("${" + PROPERTY + ":1MB}") DataSize max) {
    if (max.toBytes() < 1) {
      throw new IllegalArgumentException(PROPERTY + " must be at least 1 byte, got: " + max);
    }
    this.maxBytes = max.toBytes();
  }

  static String reason(long maxBytes) {
    return "the request body is larger than " + maxBytes + " bytes (" + PROPERTY + ")";
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    long declared = request.getContentLengthLong();
    if (declared > maxBytes) {
      refuse(request, response);
    } else if (declared < 0) {
      chain.doFilter(new SizeLimitedRequest(request, maxBytes), response);
    } else {
      chain.doFilter(request, response); // Tomcat reads no more than the declared length
    }
  }

  /**
   * {@code 413} in the shape of the API asked: OpenAI-style under {@code /v1/}, else an RFC 9457
   * problem as the chat API's other refusals. Tomcat then drains or closes the unread body.
   */
  private void refuse(HttpServletRequest request, HttpServletResponse response) throws IOException {
    HttpStatus status = HttpStatus.CONTENT_TOO_LARGE;
    ObjectNode body = JSON.createObjectNode();
    String contentType;
    if (request.getRequestURI().startsWith(request.getContextPath() + "/v1/")) {
      body.putObject("error")
          .put("message", reason(maxBytes))
          .put("type", "invalid_request_error")
          .put("code", "request_too_large");
      contentType = MediaType.APPLICATION_JSON_VALUE;
    } else {
      body.put("type", "about:blank")
          .put("title", status.getReasonPhrase())
          .put("status", status.value())
          .put("detail", reason(maxBytes))
          .put("instance", request.getRequestURI());
      contentType = MediaType.APPLICATION_PROBLEM_JSON_VALUE;
    }
    response.setStatus(status.value());
    response.setContentType(contentType);
    response.setCharacterEncoding(StandardCharsets.UTF_8);
    response.setHeader("Connection", "close");
    response.getOutputStream().write(JSON.writeValueAsBytes(body));
  }
}
