package dev.agentrt.systemtests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The orchestrator's HTTP API as a person's client uses it. */
final class ChatApi {

  record Response(int status, JsonNode body) {}

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final String baseUrl;

  ChatApi(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  String createChat() {
    Response created = post("/api/chats", "{\"title\":\"system test\"}");
    if (created.status() != 201) {
      throw new AssertionError("POST /api/chats answered " + created);
    }
    return created.body().required("id").asString();
  }

  Response postMessage(String chatId, String content) {
    return post(
        "/api/chats/" + chatId + "/messages",
        JSON.writeValueAsString(JSON.createObjectNode().put("content", content)));
  }

  Response get(String path) {
    return send(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET().timeout(TIMEOUT));
  }

  Response post(String path, String json) {
    return post(path, json, TIMEOUT);
  }

  /** A post that may take longer: {@code /v1/chat/completions} waits for the chat's reply. */
  Response post(String path, String json, Duration timeout) {
    return send(
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .timeout(timeout));
  }

  private Response send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
      JsonNode body =
          response.body().isBlank() ? JSON.missingNode() : JSON.readTree(response.body());
      return new Response(response.statusCode(), body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
