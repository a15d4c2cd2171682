package dev.agentrt.systemtests;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A model over the OpenAI chat-completions wire format that behaves like a working one, for fault
 * tests: it decides a new task for every message; the agent's first turn asks for a burst of {@code
 * search_docs} calls (or {@code ask_user} when the instruction says "ask"), the turn after the
 * results answers; the finalizer gets a short text. Any kind of call can be held in flight with a
 * {@link Gate}, so a test can kill a service exactly while its model call is open.
 *
 * <p>It also watches what it is sent: a tool result that appears twice in one conversation means a
 * tool call was answered twice, and is counted in {@link #duplicateToolResults}.
 */
final class ScriptedOpenAiServer implements AutoCloseable {

  enum Call {
    DECISION,
    AGENT_TURN,
    FINAL_ANSWER
  }

  /** Holds every call of one kind until released; says when the first one arrived. */
  static final class Gate {
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    void awaitArrival(Duration timeout) {
      try {
        if (!arrived.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new AssertionError("no model call arrived at the gate within " + timeout);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    void release() {
      released.countDown();
    }

    private void pass() {
      arrived.countDown();
      try {
        released.await(2, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final int toolCallsPerTurn;
  private final Map<Call, Gate> gates = new ConcurrentHashMap<>();
  final Set<String> duplicateToolResults = ConcurrentHashMap.newKeySet();

  ScriptedOpenAiServer(int toolCallsPerTurn) {
    this.toolCallsPerTurn = toolCallsPerTurn;
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/v1/chat/completions", this::complete);
    server.setExecutor(executor);
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }

  /** From now on, calls of this kind wait until the gate is released (then it is removed). */
  Gate hold(Call kind) {
    Gate gate = new Gate();
    gates.put(kind, gate);
    return gate;
  }

  /** Lets the held calls of this kind go on, and no longer holds new ones. */
  void release(Call kind) {
    Gate gate = gates.remove(kind);
    if (gate != null) {
      gate.release();
    }
  }

  private void complete(HttpExchange exchange) throws IOException {
    JsonNode request = JSON.readTree(exchange.getRequestBody());
    JsonNode messages = request.path("messages");
    String system = messages.path(0).path("content").asString("");
    boolean agentTurn = request.path("tools").isArray() && !request.path("tools").isEmpty();
    Call kind =
        system.contains("Context: ")
            ? Call.DECISION
            : agentTurn ? Call.AGENT_TURN : Call.FINAL_ANSWER;
    Gate gate = gates.get(kind);
    if (gate != null) {
      gate.pass();
    }
    String reply =
        switch (kind) {
          case DECISION -> decision(messages);
          case AGENT_TURN -> agentTurn(messages);
          case FINAL_ANSWER -> text("Here is what the researcher found.");
        };
    try {
      respond(exchange, reply);
    } catch (IOException callerGone) {
      // The service that asked was killed while the call was held: nobody reads the answer.
    }
  }

  private static String decision(JsonNode messages) {
    String instruction = messages.path(messages.size() - 1).path("content").asString();
    ObjectNode decision =
        JSON.createObjectNode()
            .put("action", "new_task")
            .put("agent", "researcher")
            .put("instruction", instruction);
    return text(JSON.writeValueAsString(decision));
  }

  private String agentTurn(JsonNode messages) {
    Set<String> answered = new HashSet<>();
    String instruction = "";
    int userMessages = 0;
    for (JsonNode m : messages) {
      String role = m.path("role").asString();
      userMessages += role.equals("user") ? 1 : 0;
      if (role.equals("tool") && !answered.add(m.path("tool_call_id").asString())) {
        duplicateToolResults.add(m.path("tool_call_id").asString());
      }
      if (role.equals("user") && instruction.isEmpty()) {
        instruction = m.path("content").asString("");
      }
    }
    if (!answered.isEmpty() || userMessages > 1) {
      return text("Done: " + instruction + " (" + answered.size() + " results read)");
    }
    if (instruction.contains("ask")) {
      return toolCalls(Map.of("ask_user", "{\"question\":\"Which subject?\"}"));
    }
    Map<String, String> calls = new LinkedHashMap<>();
    for (int i = 0; i < toolCallsPerTurn; i++) {
      calls.put("search_docs#" + i, "{\"query\":\"kafka topic " + i + "\"}");
    }
    return toolCalls(calls);
  }

  /** An assistant message with these tool calls; a key's part before '#' is the tool name. */
  private static String toolCalls(Map<String, String> calls) {
    ObjectNode body = completion("tool_calls");
    ObjectNode message = (ObjectNode) body.path("choices").path(0).path("message");
    message.putNull("content");
    ArrayNode array = message.putArray("tool_calls");
    calls.forEach(
        (name, arguments) -> {
          ObjectNode call = array.addObject();
          call.put("id", "call_" + UUID.randomUUID().toString().replace("-", ""));
          call.put("type", "function");
          call.putObject("function")
              .put("name", name.replaceFirst("#.*", ""))
              .put("arguments", arguments);
        });
    return JSON.writeValueAsString(body);
  }

  private static String text(String content) {
    ObjectNode body = completion("stop");
    ((ObjectNode) body.path("choices").path(0).path("message")).put("content", content);
    return JSON.writeValueAsString(body);
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

  private static void respond(HttpExchange exchange, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    gates.values().forEach(Gate::release);
    server.stop(0);
    executor.shutdownNow();
  }
}
