package dev.agentrt.systemtests;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A local server speaking the OpenAI chat-completions wire format, for the services' real
 * OpenAI-compatible provider: it decides like a model would (a new task for the person's message)
 * and fails every other call with HTTP 500, counting the agent turns it refused.
 */
final class FakeOpenAiServer implements AutoCloseable {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpServer server;
  final AtomicInteger refusedAgentTurns = new AtomicInteger();

  FakeOpenAiServer() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/v1/chat/completions", this::complete);
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }

  private void complete(HttpExchange exchange) throws IOException {
    JsonNode request = JSON.readTree(exchange.getRequestBody());
    JsonNode messages = request.path("messages");
    String system = messages.path(0).path("content").asString("");
    if (system.contains("Context: ")) {
      String instruction = messages.path(messages.size() - 1).path("content").asString();
      ObjectNode decision =
          JSON.createObjectNode()
              .put("action", "new_task")
              .put("agent", "researcher")
              .put("instruction", instruction);
      respond(exchange, 200, completion(JSON.writeValueAsString(decision)));
      return;
    }
    if (request.path("tools").isArray() && !request.path("tools").isEmpty()) {
      refusedAgentTurns.incrementAndGet();
    }
    respond(
        exchange,
        500,
        "{\"error\":{\"message\":\"the fake provider is down\",\"type\":\"server_error\"}}");
  }

  private static String completion(String content) {
    ObjectNode body = JSON.createObjectNode();
    body.put("id", "chatcmpl-fake").put("object", "chat.completion").put("created", 1_700_000_000L);
    body.put("model", "fake");
    ObjectNode choice = body.putArray("choices").addObject();
    choice.put("index", 0).put("finish_reason", "stop");
    choice.putObject("message").put("role", "assistant").put("content", content);
    body.putObject("usage")
        .put("prompt_tokens", 20)
        .put("completion_tokens", 10)
        .put("total_tokens", 30);
    return JSON.writeValueAsString(body);
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
