package dev.agentrt.orchestrator.http;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A refusal written by a filter, before any controller, in the shape of the API asked: OpenAI-style
 * under {@code /v1/}, else an RFC 9457 problem as the chat API's other refusals.
 */
final class EdgeRefusal {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private EdgeRefusal() {}

  static void write(
      HttpServletRequest request,
      HttpServletResponse response,
      HttpStatus status,
      String detail,
      String code)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    String contentType;
    if (request.getRequestURI().startsWith(request.getContextPath() + "/v1/")) {
      body.putObject("error")
          .put("message", detail)
          .put("type", "invalid_request_error")
          .put("code", code);
      contentType = MediaType.APPLICATION_JSON_VALUE;
    } else {
      body.put("type", "about:blank")
          .put("title", status.getReasonPhrase())
          .put("status", status.value())
          .put("detail", detail)
          .put("instance", request.getRequestURI());
      contentType = MediaType.APPLICATION_PROBLEM_JSON_VALUE;
    }
    response.setStatus(status.value());
    response.setContentType(contentType);
    response.setCharacterEncoding(StandardCharsets.UTF_8);
    response.getOutputStream().write(JSON.writeValueAsBytes(body));
  }
}
