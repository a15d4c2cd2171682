package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The orchestrator's OpenAI-compatible API as a plain OpenAI client uses it (no SDK, plain HTTP):
 * each request waits for the chat's reply, and a client that only resends the history continues the
 * same chat, answering a sub-agent's question included.
 */
class OpenAiCompatibleApiIT {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final EmbeddedStack stack = EmbeddedStack.get();
  private final String baseUrl = stack.services.baseUrl("orchestrator");
  private final ChatApi api = new ChatApi(baseUrl);

  @Test
  void listsTheOrchestratorAsAModel() {
    HttpResponse<String> models = send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/models")));

    assertThat(models.statusCode()).isEqualTo(200);
    JsonNode body = JSON.readTree(models.body());
    assertThat(body.path("data").path(0).path("id").asString()).isEqualTo("agentrt");
  }

  @Test
  void aResearchRequestIsAnsweredWithTheResearchersAnswer() {
    HttpResponse<String> response = complete(messages("user", "Research Kafka"), false);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("X-Chat-Id")).isPresent();
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.path("object").asString()).isEqualTo("chat.completion");
    assertThat(body.path("chat_id").asString())
        .isEqualTo(response.headers().firstValue("X-Chat-Id").orElseThrow());
    assertThat(content(body)).contains("Sources").containsIgnoringCase("kafka");
    assertThat(body.path("choices").path(0).path("finish_reason").asString()).isEqualTo("stop");
  }

  @Test
  void aPlainClientResendingTheHistoryAnswersTheSubAgentsQuestionInTheSameChat() {
    HttpResponse<String> first = complete(messages("user", "Research"), false);
    assertThat(first.statusCode()).isEqualTo(200);
    JsonNode asked = JSON.readTree(first.body());
    String question = content(asked);
    assertThat(question).startsWith("The Researcher needs more information:");

    HttpResponse<String> second =
        complete(messages("user", "Research", "assistant", question, "user", "Kafka"), false);

    assertThat(second.statusCode()).isEqualTo(200);
    JsonNode answered = JSON.readTree(second.body());
    assertThat(answered.path("chat_id").asString()).isEqualTo(asked.path("chat_id").asString());
    assertThat(content(answered)).containsIgnoringCase("kafka").contains("Sources");
    JsonNode tasks = api.get("/api/chats/" + asked.path("chat_id").asString() + "/tasks").body();
    assertThat(tasks).hasSize(1);
    assertThat(tasks.path(0).path("status").asString()).isEqualTo("success");
  }

  @Test
  void aStreamedAnswerIsTheStoredAnswerInChunksEndingWithDone() {
    HttpResponse<String> response = complete(messages("user", "Research Kafka"), true);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("text/event-stream");
    String chatId = response.headers().firstValue("X-Chat-Id").orElseThrow();
    assertThat(response.body()).endsWith("data: [DONE]\n\n");
    List<JsonNode> chunks = new ArrayList<>();
    for (String event : response.body().split("\n\n")) {
      assertThat(event).startsWith("data: ");
      if (!event.equals("data: [DONE]")) {
        chunks.add(JSON.readTree(event.substring("data: ".length())));
      }
    }
    assertThat(chunks.getFirst().path("choices").path(0).path("delta").path("role").asString())
        .isEqualTo("assistant");
    assertThat(chunks.getLast().path("choices").path(0).path("finish_reason").asString())
        .isEqualTo("stop");
    StringBuilder streamed = new StringBuilder();
    for (JsonNode chunk : chunks) {
      assertThat(chunk.path("object").asString()).isEqualTo("chat.completion.chunk");
      streamed.append(chunk.path("choices").path(0).path("delta").path("content").asString(""));
    }
    JsonNode stored = api.get("/api/chats/" + chatId + "/messages").body();
    assertThat(stored).hasSize(2);
    assertThat(streamed.toString())
        .as("the deltas joined: the answer a request without stream gets")
        .contains("Sources")
        .isEqualTo(stored.path(1).path("content").asString());
    HttpResponse<String> notStreamed = complete(messages("user", "Research Kafka"), false);
    assertThat(content(JSON.readTree(notStreamed.body())))
        .as("the same request without stream, in a new chat (the offline model is deterministic)")
        .isEqualTo(streamed.toString());
  }

  @Test
  void refusesARequestWhoseLastMessageIsNotTheUsers() {
    HttpResponse<String> response = complete(messages("assistant", "Hi"), false);

    assertThat(response.statusCode()).isEqualTo(400);
    JsonNode error = JSON.readTree(response.body()).path("error");
    assertThat(error.path("type").asString()).isEqualTo("invalid_request_error");
    assertThat(error.path("param").asString()).isEqualTo("messages[0].role");
  }

  private static String content(JsonNode completion) {
    return completion.path("choices").path(0).path("message").path("content").asString();
  }

  private static ObjectNode messages(String... roleAndContent) {
    ObjectNode request = JSON.createObjectNode().put("model", "agentrt");
    ArrayNode messages = request.putArray("messages");
    for (int i = 0; i < roleAndContent.length; i += 2) {
      messages.addObject().put("role", roleAndContent[i]).put("content", roleAndContent[i + 1]);
    }
    return request;
  }

  private HttpResponse<String> complete(ObjectNode request, boolean stream) {
    request.put("stream", stream);
    return send(
        HttpRequest.newBuilder()
            .uri(URI.create(baseUrl + "/v1/chat/completions"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request))));
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return HTTP.send(
          request.timeout(Duration.ofSeconds(150)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
