package dev.agentrt.systemtests;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAI chat-completions wire format as the system tests' fake models speak it: which kind of
 * call a request is, and the completions they answer (each reporting 20 + 10 tokens).
 */
final class OpenAiWire {

  static final JsonMapper JSON = JsonMapper.builder().build();

  /** A tool call of an assistant message. */
  record ToolCall(String id, String name, String arguments) {}

  private OpenAiWire() {}

  /** The orchestrator's decision: its system message ends with the context line. */
  static boolean isDecision(JsonNode request) {
    return request.path("messages").path(0).path("content").asString("").contains("Context: ");
  }

  /** An agent's turn: the only calls that offer tools. */
  static boolean isAgentTurn(JsonNode request) {
    return request.path("tools").isArray() && !request.path("tools").isEmpty();
  }

  /** The decision a model would make for the person's last message: a task for the researcher. */
  static String newResearchTask(JsonNode request) {
    return newTask(request, "researcher");
  }

  /** A decision putting the agent on a task whose instruction is the person's last message. */
  static String newTask(JsonNode request, String agent) {
    JsonNode messages = request.path("messages");
    String instruction = messages.path(messages.size() - 1).path("content").asString();
    ObjectNode decision =
        JSON.createObjectNode()
            .put("action", "new_task")
            .put("agent", agent)
            .put("instruction", instruction)
            .put("confidence", 0.9)
            .put("reason", "The person asks for research.");
    return text(JSON.writeValueAsString(decision));
  }

  /** An assistant message with text. */
  static String text(String content) {
    ObjectNode body = completion("stop");
    message(body).put("content", content);
    return JSON.writeValueAsString(body);
  }

  /** An assistant message with these tool calls and no text. */
  static String toolCalls(List<ToolCall> calls) {
    ObjectNode body = completion("tool_calls");
    ObjectNode message = message(body);
    message.putNull("content");
    ArrayNode array = message.putArray("tool_calls");
    for (ToolCall call : calls) {
      array
          .addObject()
          .put("id", call.id())
          .put("type", "function")
          .putObject("function")
          .put("name", call.name())
          .put("arguments", call.arguments());
    }
    return JSON.writeValueAsString(body);
  }

  static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static ObjectNode completion(String finishReason) {
    ObjectNode body = JSON.createObjectNode();
    body.put("id", "chatcmpl-" + UUID.randomUUID()).put("object", "chat.completion");
    body.put("created", 1_700_000_000L).put("model", "fake");
    ObjectNode choice = body.putArray("choices").addObject();
    choice.put("index", 0).put("finish_reason", finishReason);
    choice.putObject("message").put("role", "assistant");
    body.putObject("usage")
        .put("prompt_tokens", 20)
        .put("completion_tokens", 10)
        .put("total_tokens", 30);
    return body;
  }

  private static ObjectNode message(ObjectNode body) {
    return (ObjectNode) body.path("choices").path(0).path("message");
  }
}
