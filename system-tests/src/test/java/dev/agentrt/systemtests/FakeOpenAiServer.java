package dev.agentrt.systemtests;

import static dev.agentrt.systemtests.OpenAiWire.respond;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A local server speaking the OpenAI chat-completions wire format, for the services' real
 * OpenAI-compatible provider: it decides like a model would (a new task for the researcher for the
 * person's message; for a message that starts with {@code [plan]}, the plan of {@link #PLAN}; with
 * {@code [plan-to-cancel]}, that of {@link #PLAN_TO_CANCEL}; with {@code [bad-plan]}, a plan naming
 * an unknown agent, then on repair one with a cycle, then on the second repair {@link
 * #REPAIRED_PLAN}, keeping the repair requests in {@link #repairRequests}) and answers an agent
 * turn by the task's instruction:
 *
 * <ul>
 *   <li>{@code [answer] text…}: answers with the rest of its first line;
 *   <li>{@code [fallback] text…}: the fallback agent (the {@code assistant}) answers with the rest
 *       of its first line; any other agent's turn is refused with HTTP 500, as below;
 *   <li>{@code [repeat] …}: calls {@code read_doc} on {@code kafka.md}, every time;
 *   <li>{@code [loop] …}: calls {@code search_docs} with a new query every time;
 *   <li>{@code [hang] …}: holds the call until the server closes, then calls {@code search_docs};
 *   <li>{@code [guide] …}: the first turn calls {@code search_docs} (held while a test holds it
 *       with {@link #holdFirstGuidedTurn}); every later turn answers {@code Guided: <the last user
 *       message>}, so guidance shows in the answer it reached;
 *   <li>{@code [write] <path>|<content>} (decided for the {@code filer} agent): calls {@code
 *       files__write_file} with that path and content, then answers {@code Tool said: <its
 *       result>};
 *   <li>anything else: HTTP 500, counting the agent turns it refused.
 * </ul>
 *
 * Every other call (the finalizer's) fails with HTTP 500 too. Each answer reports 20 + 10 tokens.
 * The messages of every agent turn it answered are kept, in order ({@link #agentTurns(String)}).
 */
final class FakeOpenAiServer implements AutoCloseable {

  private static final JsonMapper JSON = OpenAiWire.JSON;

  /**
   * Four researcher nodes: {@code ok}, then {@code after-ok} on its result; {@code bad}, whose
   * every turn the server refuses, then {@code after-bad}, which depends on it.
   */
  static final String PLAN =
      """
      {"action":"plan","nodes":[
        {"id":"ok","agent":"researcher","instruction":"[answer] The outbox is a field."},
        {"id":"after-ok","agent":"researcher","instruction":"[answer] Built on ok.",
         "dependsOn":["ok"]},
        {"id":"bad","agent":"researcher","instruction":"Research what fails"},
        {"id":"after-bad","agent":"researcher","instruction":"[answer] Never runs.",
         "dependsOn":["bad"]}],
       "confidence":0.9,"reason":"Two independent branches."}""";

  /**
   * Five researcher nodes: {@code slow} and {@code held}, whose model calls hang, each with a node
   * that depends on it ({@code after-slow}, {@code after-held}), and {@code quick}, which answers
   * at once. Nothing ends the hanging nodes but a cancellation.
   */
  static final String PLAN_TO_CANCEL =
      """
      {"action":"plan","nodes":[
        {"id":"slow","agent":"researcher","instruction":"[hang] Research slowly"},
        {"id":"after-slow","agent":"researcher","instruction":"[answer] After slow.",
         "dependsOn":["slow"]},
        {"id":"held","agent":"researcher","instruction":"[hang] Research at length"},
        {"id":"after-held","agent":"researcher","instruction":"[answer] After held.",
         "dependsOn":["held"]},
        {"id":"quick","agent":"researcher","instruction":"[answer] Done at once."}],
       "confidence":0.9,"reason":"Branches to cancel."}""";

  private static final String UNKNOWN_AGENT_PLAN =
      """
      {"action":"plan","nodes":[{"id":"a","agent":"poet","instruction":"[answer] A poem."}],
       "confidence":0.9,"reason":"A poet writes it."}""";

  private static final String CYCLE_PLAN =
      """
      {"action":"plan","nodes":[
        {"id":"b","agent":"researcher","instruction":"[answer] B.","dependsOn":["c"]},
        {"id":"c","agent":"researcher","instruction":"[answer] C.","dependsOn":["b"]}],
       "confidence":0.9,"reason":"Each needs the other."}""";

  /** The plan the second repair of a {@code [bad-plan]} decision gets: one node. */
  private static final String REPAIRED_PLAN =
      """
      {"action":"plan","nodes":[
        {"id":"fixed","agent":"researcher","instruction":"[answer] The outbox, repaired."}],
       "confidence":0.9,"reason":"One researcher is enough."}""";

  private static final String REPAIR = "Your previous decision was invalid";

  private static final String ANSWER = "[answer] ";
  private static final String WRITE = "[write] ";

  /** The agent {@code [write]} tasks are decided for: it lists {@code files__write_file}. */
  static final String FILER = "filer";

  private static final String FALLBACK = "[fallback] ";

  private final HttpServer server;
  final AtomicInteger refusedAgentTurns = new AtomicInteger();
  final AtomicInteger agentTurns = new AtomicInteger();
  final List<String> repairRequests = new CopyOnWriteArrayList<>();
  private final CountDownLatch closing = new CountDownLatch(1);
  private final List<JsonNode> agentTurnMessages = new CopyOnWriteArrayList<>();
  private volatile ScriptedOpenAiServer.@Nullable Gate firstGuidedTurn;

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
    if (OpenAiWire.isDecision(request)) {
      String said = messages.path(messages.size() - 1).path("content").asString("");
      respond(exchange, 200, decide(request, said));
      return;
    }
    if (OpenAiWire.isAgentTurn(request)) {
      agentTurnMessages.add(messages);
      String instruction = messages.path(1).path("content").asString("");
      int turn = 0;
      for (JsonNode m : messages) {
        turn += m.path("role").asString().equals("assistant") ? 1 : 0;
      }
      String call = "call_" + turn;
      if (instruction.startsWith(ANSWER)) {
        agentTurns.incrementAndGet();
        String firstLine = instruction.lines().findFirst().orElse(ANSWER);
        respond(exchange, 200, OpenAiWire.text(firstLine.substring(ANSWER.length())));
        return;
      }
      if (instruction.startsWith(FALLBACK) && isTheAssistant(messages)) {
        agentTurns.incrementAndGet();
        String firstLine = instruction.lines().findFirst().orElse(FALLBACK);
        respond(exchange, 200, OpenAiWire.text(firstLine.substring(FALLBACK.length())));
        return;
      }
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
          closing.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        respond(exchange, 200, toolCall(call, "search_docs", "{\"query\":\"x\"}"));
        return;
      }
      if (instruction.startsWith("[guide]")) {
        agentTurns.incrementAndGet();
        ScriptedOpenAiServer.Gate gate = firstGuidedTurn;
        if (turn == 0 && gate != null) {
          gate.pass();
        }
        respond(
            exchange,
            200,
            turn == 0
                ? toolCall(call, "search_docs", "{\"query\":\"kafka\"}")
                : OpenAiWire.text("Guided: " + last(messages, "user")));
        return;
      }
      if (instruction.startsWith(WRITE)) {
        agentTurns.incrementAndGet();
        String[] pathAndContent =
            instruction.lines().findFirst().orElse("").substring(WRITE.length()).split("\\|", 2);
        respond(
            exchange,
            200,
            turn == 0
                ? toolCall(
                    call,
                    "files__write_file",
                    JSON.createObjectNode()
                        .put("path", pathAndContent[0])
                        .put("content", pathAndContent[1])
                        .toString())
                : OpenAiWire.text("Tool said: " + last(messages, "tool")));
        return;
      }
      refusedAgentTurns.incrementAndGet();
    }
    respond(
        exchange,
        500,
        "{\"error\":{\"message\":\"the fake provider is down\",\"type\":\"server_error\"}}");
  }

  /**
   * From now on, the first turn of a {@code [guide]} task waits at the gate until it is released.
   */
  ScriptedOpenAiServer.Gate holdFirstGuidedTurn() {
    ScriptedOpenAiServer.Gate gate = new ScriptedOpenAiServer.Gate();
    firstGuidedTurn = gate;
    return gate;
  }

  /**
   * The messages of each agent turn of the task whose instruction starts with this, in the order
   * asked.
   */
  List<JsonNode> agentTurns(String instruction) {
    return agentTurnMessages.stream()
        .filter(m -> m.path(1).path("content").asString("").startsWith(instruction))
        .toList();
  }

  /** The content of the conversation's last message with this role. */
  private static String last(JsonNode messages, String role) {
    String content = "";
    for (JsonNode m : messages) {
      if (m.path("role").asString().equals(role)) {
        content = m.path("content").asString("");
      }
    }
    return content;
  }

  private String decide(JsonNode request, String said) {
    if (said.startsWith(REPAIR)) {
      repairRequests.add(said);
      long repairs = 0;
      for (JsonNode m : request.path("messages")) {
        repairs += m.path("content").asString("").startsWith(REPAIR) ? 1 : 0;
      }
      return OpenAiWire.text(repairs == 1 ? CYCLE_PLAN : REPAIRED_PLAN);
    }
    if (said.startsWith("[bad-plan]")) {
      return OpenAiWire.text(UNKNOWN_AGENT_PLAN);
    }
    if (said.startsWith("[plan]")) {
      return OpenAiWire.text(PLAN);
    }
    if (said.startsWith("[plan-to-cancel]")) {
      return OpenAiWire.text(PLAN_TO_CANCEL);
    }
    if (said.startsWith(WRITE)) {
      return OpenAiWire.newTask(request, FILER);
    }
    return OpenAiWire.newResearchTask(request);
  }

  /** Whether the turn is the fallback agent's: its system prompt (agents.yml) says so. */
  private static boolean isTheAssistant(JsonNode messages) {
    return messages
        .path(0)
        .path("content")
        .asString("")
        .startsWith("You are the assistant of this agent runtime");
  }

  private static String toolCall(String id, String name, String arguments) {
    return OpenAiWire.toolCalls(List.of(new OpenAiWire.ToolCall(id, name, arguments)));
  }

  @Override
  public void close() {
    closing.countDown();
    server.stop(0);
  }
}
