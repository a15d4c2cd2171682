package dev.agentrt.systemtests;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A local server speaking the OpenAI chat-completions wire format, for the services' real
 * OpenAI-compatible provider: it decides like a model would (a new task for the person's message)
 * and answers an agent turn by the task's instruction:
 *
 * <ul>
 *   <li>{@code [repeat] …}: calls {@code read_doc} on {@code kafka.md}, every time;
 *   <li>{@code [loop] …}: calls {@code search_docs} with a new query every time;
 *   <li>{@code [hang] …}: holds the call for {@link #HANG}, then calls {@code search_docs};
 *   <li>anything else: HTTP 500, counting the agent turns it refused.
 * </ul>
 *
 * Every other call (the finalizer's) fails with HTTP 500 too. Each answer reports 20 + 10 tokens.
 */
final class FakeOpenAiServer implements AutoCloseable {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  static final Duration HANG = Duration.ofSeconds(12);

  private final HttpServer server;
  final AtomicInteger refusedAgentTurns = new AtomicInteger();
  final AtomicInteger agentTurns = new AtomicInteger();

  FakeOpenAiServer() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/v1/chat/completions", this::complete);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor()); // a held call holds no other
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
      String instruction = messages.path(1).path("content").asString("");
      int turn = 0;
      for (JsonNode m : messages) {
        turn += m.path("role").asString().equals("assistant") ? 1 : 0;
      }
      String call = "call_" + turn;
      if (instruction.startsWith("[repeat]")) {
        agentTurns.incrementAndGet();
        respond(exchange, 200, toolCall(call, "read_doc", "{\"path\":\"kafka.md\"}"));
        return;
      }
      if (instruction.startsWith("[loop]")) {
        agentTurns.incrementAndGet();
        respond(exchange, 200, toolCall(call, "search_docs", "{\"query\":\"q" + turn + "\"}"));
        return;
      }
      if (instruction.startsWith("[hang]")) {
        agentTurns.incrementAndGet();
        try {
          Thread.sleep(HANG);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        respond(exchange, 200, toolCall(call, "search_docs", "{\"query\":\"x\"}"));
        return;
      }
      refusedAgentTurns.incrementAndGet();
    }
    respond(
        exchange,
        500,
        "{\"error\":{\"message\":\"the fake provider is down\",\"type\":\"server_error\"}}");
  }

  private static String completion(String content) {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode choice = head(body);
    choice.put("finish_reason", "stop");
    choice.putObject("message").put("role", "assistant").put("content", content);
    return withUsage(body);
  }

  private static String toolCall(String id, String name, String arguments) {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode choice = head(body);
    choice.put("finish_reason", "tool_calls");
    ObjectNode message = choice.putObject("message").put("role", "assistant");
    message.putNull("content");
    ObjectNode call =
        message.putArray("tool_calls").addObject().put("id", id).put("type", "function");
    call.putObject("function").put("name", name).put("arguments", arguments);
    return withUsage(body);
  }

  private static ObjectNode head(ObjectNode body) {
    body.put("id", "chatcmpl-fake").put("object", "chat.completion").put("created", 1_700_000_000L);
    body.put("model", "fake");
    return body.putArray("choices").addObject().put("index", 0);
  }

  private static String withUsage(ObjectNode body) {
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
