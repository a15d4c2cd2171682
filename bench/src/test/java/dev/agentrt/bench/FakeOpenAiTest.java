package dev.agentrt.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The fake model answers decisions and agent turns as the script in the conversation says. */
class FakeOpenAiTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final FakeOpenAi model = new FakeOpenAi("http://127.0.0.1:9999");

  @AfterEach
  void close() {
    model.close();
  }

  @Test
  void aDecisionPutsTheBenchAgentOnTheMessage() {
    Script script = new Script("a1", "g", 2, 1, "read_doc", 0, 0, 0);
    ObjectNode request = request("You are the orchestrator…\nContext: {\"agents\":[]}");
    messages(request).addObject().put("role", "user").put("content", script.instruction());

    JsonNode message = message(model.reply(request).body());

    JsonNode decision = JSON.readTree(message.path("content").asString());
    assertThat(decision.path("action").asString()).isEqualTo("new_task");
    assertThat(decision.path("agent").asString()).isEqualTo(FakeOpenAi.AGENT);
    assertThat(Script.in(decision.path("instruction").asString())).contains(script);
  }

  @Test
  void agentTurnsCallTheScriptedToolsRoundByRoundThenAnswer() {
    Script script = new Script("a2", "g", 2, 3, "http_get", 0, 0, 1500);
    ObjectNode request = request("Follow the bench script in your task.");
    messages(request).addObject().put("role", "user").put("content", script.instruction());

    FakeOpenAi.Reply first = model.reply(request);
    JsonNode calls = message(first.body()).path("tool_calls");
    assertThat(first.round()).isZero();
    assertThat(calls).hasSize(3);
    assertThat(calls.path(0).path("function").path("name").asString()).isEqualTo("http_get");
    assertThat(
            JSON.readTree(calls.path(2).path("function").path("arguments").asString())
                .path("url")
                .asString())
        .startsWith("http://127.0.0.1:9999/sleep?ms=1500&id=a2&round=0&call=2");

    messages(request).addObject().put("role", "assistant").set("tool_calls", calls);
    assertThat(message(model.reply(request).body()).path("tool_calls")).hasSize(3);

    messages(request).addObject().put("role", "assistant").set("tool_calls", calls);
    FakeOpenAi.Reply last = model.reply(request);
    assertThat(last.round()).isEqualTo(2);
    assertThat(message(last.body()).path("content").asString()).isEqualTo(FakeOpenAi.FINAL_ANSWER);
    assertThat(message(last.body()).has("tool_calls")).isFalse();
  }

  @Test
  void theGateHoldsFirstTurnsUntilAllHaveArrivedAndCountsThemInFlight() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    int n = 5;
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Script script = new Script("gated-" + i, "gate-test", 1, 1, "read_doc", 0, n, 0);
      ObjectNode request = request("Follow the bench script in your task.");
      messages(request).addObject().put("role", "user").put("content", script.instruction());
      responses.add(
          http.sendAsync(
              HttpRequest.newBuilder(URI.create(model.baseUrl() + "/chat/completions"))
                  .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request)))
                  .build(),
              HttpResponse.BodyHandlers.ofString()));
    }

    for (CompletableFuture<HttpResponse<String>> response : responses) {
      assertThat(response.get().statusCode()).isEqualTo(200);
    }
    // None was answered before the last arrived: all five were held at once.
    assertThat(model.maxInFlight()).isEqualTo(n);
    assertThat(model.gateOpenedAt("gate-test")).isNotNull();
    assertThat(model.turns()).hasSize(n).allMatch(t -> t.round() == 0);
  }

  private static ObjectNode request(String systemPrompt) {
    ObjectNode request = JSON.createObjectNode().put("model", "bench-model");
    request.putArray("messages").addObject().put("role", "system").put("content", systemPrompt);
    return request;
  }

  private static ArrayNode messages(ObjectNode request) {
    return (ArrayNode) request.get("messages");
  }

  private static JsonNode message(String completion) {
    return JSON.readTree(completion).path("choices").path(0).path("message");
  }
}
