package dev.agentrt.orchestrator.http;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
import org.springframework.web.filter.OncePerRequestFilter;

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

  /** {@code 413}; Tomcat then drains or closes the unread body. */
  private void refuse(HttpServletRequest request, HttpServletResponse response) throws IOException {
    response.setHeader("Connection", "close");
    EdgeRefusal.write(
        request, response, HttpStatus.CONTENT_TOO_LARGE, reason(maxBytes), "request_too_large");
  }
}
