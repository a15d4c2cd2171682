package dev.agentrt.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A model behind the OpenAI chat-completions wire format, scripted by what it sees: the
 * orchestrator's decision request gets {@code new_task} for the {@code bench} agent with the
 * person's message as instruction; an agent turn finds its {@link Script} in the conversation and,
 * counting the turns already taken, answers with the round's tool calls or the final answer, after
 * the script's latency. Each request is served on its own virtual thread, so a thousand held calls
 * wait side by side. It counts calls in flight and records when each turn arrived and was answered.
 */
final class FakeOpenAi implements AutoCloseable {

  static final String AGENT = "bench";
  static final String FINAL_ANSWER = "done";
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Below the services' 60 s per model call, so that a held call is not timed out and retried. */
  private static final long GATE_TIMEOUT_S = 45;

  /** One agent turn as the model saw it: which sub-agent, which round, when (epoch ms). */
  record Turn(String id, int round, long receivedAt, long answeredAt, int inFlightAtArrival) {}

  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final String slowBaseUrl;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger maxInFlight = new AtomicInteger();
  private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
  private final Map<String, Long> gateOpenedAt = new ConcurrentHashMap<>();
  private final Map<String, Long> gateShortBy = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Turn> turns = new ConcurrentLinkedQueue<>();

  /**
   * @param slowBaseUrl where the slow endpoint is, for {@code http_get} calls ({@code
   *     http://127.0.0.1:<port>})
   */
  FakeOpenAi(String slowBaseUrl) {
    this.slowBaseUrl = slowBaseUrl;
    try {
      // A deep accept queue: a thousand turns may connect at once.
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4096);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(executor);
    server.createContext("/v1/chat/completions", this::complete);
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }

  /** Forgets the recorded turns and the in-flight maximum: a new measurement starts. */
  void reset() {
    turns.clear();
    maxInFlight.set(inFlight.get());
  }

  List<Turn> turns() {
    return List.copyOf(turns);
  }

  int maxInFlight() {
    return maxInFlight.get();
  }

  /** When the gate of the group opened (epoch ms), or null if it has not. */
  Long gateOpenedAt(String group) {
    return gateOpenedAt.get(group);
  }

  /** How many first turns were still missing when the group's gate gave up waiting (0: none). */
  long gateShortBy(String group) {
    return gateShortBy.getOrDefault(group, 0L);
  }

  private void complete(HttpExchange exchange) throws IOException {
    long received = System.currentTimeMillis();
    int now = inFlight.incrementAndGet();
    maxInFlight.accumulateAndGet(now, Math::max);
    try {
      JsonNode request = JSON.readTree(exchange.getRequestBody());
      Reply reply = reply(request);
      if (reply.script() != null) {
        hold(reply.script(), reply.round());
      }
      respond(exchange, reply.body());
      if (reply.script() != null) {
        turns.add(
            new Turn(
                reply.script().id(), reply.round(), received, System.currentTimeMillis(), now));
      }
    } catch (RuntimeException e) {
      byte[] body =
          ("{\"error\":{\"message\":\"bench fake model: " + e + "\",\"type\":\"invalid_request\"}}")
              .getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(400, body.length);
      try (var out = exchange.getResponseBody()) {
        out.write(body);
      }
    } finally {
      inFlight.decrementAndGet();
    }
  }

  /** The gate (first round only), then the script's latency. */
  private void hold(Script script, int round) {
    try {
      if (script.gate() > 0 && round == 0) {
        CountDownLatch gate =
            gates.computeIfAbsent(script.group(), g -> new CountDownLatch(script.gate()));
        gate.countDown();
        if (gate.getCount() == 0) {
          gateOpenedAt.putIfAbsent(script.group(), System.currentTimeMillis());
        } else if (!gateOpenedAt.containsKey(script.group())
            && !gate.await(GATE_TIMEOUT_S, TimeUnit.SECONDS)) {
          // Not all came in time: the ones here go on, latecomers do not wait, and the gate
          // counts as opened now.
          gateOpenedAt.putIfAbsent(script.group(), System.currentTimeMillis());
          gateShortBy.putIfAbsent(script.group(), gate.getCount());
        }
      }
      if (script.latencyMs() > 0) {
        Thread.sleep(script.latencyMs());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * What to answer, and for an agent turn its script and round (the number of turns the sub-agent
   * already took).
   */
  record Reply(String body, Script script, int round) {}

  Reply reply(JsonNode request) {
    JsonNode messages = request.path("messages");
    String system = messages.path(0).path("content").asString("");
    if (system.contains("Context: ")) {
      String last = messages.path(messages.size() - 1).path("content").asString("");
      ObjectNode decision =
          JSON.createObjectNode()
              .put("action", "new_task")
              .put("agent", AGENT)
              .put("instruction", last)
              .put("confidence", 0.9)
              .put("reason", "Every bench message is the bench agent's work.");
      return new Reply(completion(JSON.writeValueAsString(decision), null), null, 0);
    }
    Script script = null;
    int round = 0;
    for (JsonNode m : messages) {
      String role = m.path("role").asString("");
      if (script == null && role.equals("user")) {
        script = Script.in(m.path("content").asString("")).orElse(null);
      }
      if (role.equals("assistant")) {
        round++;
      }
    }
    if (script == null) {
      return new Reply(completion("no bench script in this conversation", null), null, 0);
    }
    if (round >= script.rounds()) {
      return new Reply(completion(FINAL_ANSWER, null), script, round);
    }
    ArrayNode calls = JSON.createArrayNode();
    for (int i = 0; i < script.calls(); i++) {
      ObjectNode call =
          calls.addObject().put("id", "call_" + round + "_" + i).put("type", "function");
      call.putObject("function")
          .put("name", script.tool())
          .put("arguments", JSON.writeValueAsString(arguments(script, round, i)));
    }
    return new Reply(completion(null, calls), script, round);
  }

  private ObjectNode arguments(Script script, int round, int call) {
    ObjectNode args = JSON.createObjectNode();
    if (script.tool().equals("http_get")) {
      return args.put(
          "url",
          slowBaseUrl
              + "/sleep?ms="
              + script.sleepMs()
              + "&id="
              + script.id()
              + "&round="
              + round
              + "&call="
              + call);
    }
    // A different document each round: the same call with the same result again and again is
    // what the loop's repeat check stops (a warning at 3, the run fails at 4).
    return args.put("path", DOCS.get((round + call) % DOCS.size()));
  }

  private static final List<String> DOCS =
      List.of("tools.md", "kafka.md", "mongodb.md", "agents.md", "architecture.md");

  private static String completion(String content, ArrayNode toolCalls) {
    ObjectNode body = JSON.createObjectNode();
    body.put("id", "chatcmpl-bench")
        .put("object", "chat.completion")
        .put("created", 1_700_000_000L);
    body.put("model", "bench-model");
    ObjectNode choice = body.putArray("choices").addObject();
    choice.put("index", 0).put("finish_reason", toolCalls == null ? "stop" : "tool_calls");
    ObjectNode message = choice.putObject("message").put("role", "assistant");
    if (toolCalls == null) {
      message.put("content", content);
    } else {
      message.putNull("content");
      message.set("tool_calls", toolCalls);
    }
    body.putObject("usage")
        .put("prompt_tokens", 20)
        .put("completion_tokens", 10)
        .put("total_tokens", 30);
    return JSON.writeValueAsString(body);
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
    server.stop(0);
    executor.shutdownNow();
  }
}
