package dev.agentrt.systemtests;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
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

    /** Says the call arrived, then waits until the gate is released (two minutes at most). */
    void pass() {
      arrived.countDown();
      try {
        released.await(2, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static final JsonMapper JSON = OpenAiWire.JSON;

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
    Call kind =
        OpenAiWire.isDecision(request)
            ? Call.DECISION
            : OpenAiWire.isAgentTurn(request) ? Call.AGENT_TURN : Call.FINAL_ANSWER;
    Gate gate = gates.get(kind);
    if (gate != null) {
      gate.pass();
    }
    String reply =
        switch (kind) {
          case DECISION -> OpenAiWire.newResearchTask(request);
          case AGENT_TURN -> agentTurn(messages);
          case FINAL_ANSWER -> OpenAiWire.text("Here is what the researcher found.");
        };
    try {
      OpenAiWire.respond(exchange, 200, reply);
    } catch (IOException callerGone) {
      // The service that asked was killed while the call was held: nobody reads the answer.
    }
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
      return OpenAiWire.text("Done: " + instruction + " (" + answered.size() + " results read)");
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
    List<OpenAiWire.ToolCall> list = new ArrayList<>();
    calls.forEach(
        (name, arguments) ->
            list.add(
                new OpenAiWire.ToolCall(
                    "call_" + UUID.randomUUID().toString().replace("-", ""),
                    name.replaceFirst("#.*", ""),
                    arguments)));
    return OpenAiWire.toolCalls(list);
  }

  @Override
  public void close() {
    gates.values().forEach(Gate::release);
    server.stop(0);
    executor.shutdownNow();
  }
}
