package dev.agentrt.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import tools.jackson.databind.json.JsonMapper;

/** A person's side of the chat API: chats created and messages posted, many at once. */
final class ChatDriver {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Requests in flight at once: enough to keep the orchestrator busy, not a connection storm. */
  private static final int PARALLEL = 32;

  private final String baseUrl;
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .executor(Executors.newVirtualThreadPerTaskExecutor())
          .build();

  ChatDriver(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  /** Creates n chats; returns their ids. */
  List<String> createChats(int n) {
    return parallel(
        java.util.stream.IntStream.range(0, n).boxed().toList(),
        i -> {
          String body = post("/api/chats", "{\"title\":\"bench\"}", 201);
          return JSON.readTree(body).required("id").asString();
        });
  }

  /** Posts message i to chat i. */
  void post(List<String> chatIds, List<String> messages) {
    List<Integer> indexes = java.util.stream.IntStream.range(0, chatIds.size()).boxed().toList();
    parallel(
        indexes,
        i ->
            post(
                "/api/chats/" + chatIds.get(i) + "/messages",
                JSON.writeValueAsString(JSON.createObjectNode().put("content", messages.get(i))),
                202,
                201,
                200));
  }

  private <T, R> List<R> parallel(List<T> items, Function<T, R> work) {
    Semaphore permits = new Semaphore(PARALLEL);
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<R>> futures = new ArrayList<>();
      for (T item : items) {
        futures.add(
            executor.submit(
                () -> {
                  permits.acquire();
                  try {
                    return work.apply(item);
                  } finally {
                    permits.release();
                  }
                }));
      }
      List<R> results = new ArrayList<>();
      for (Future<R> f : futures) {
        results.add(f.get());
      }
      return results;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private String post(String path, String json, int... okStatuses) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(baseUrl + path))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      for (int ok : okStatuses) {
        if (response.statusCode() == ok) {
          return response.body();
        }
      }
      throw new IllegalStateException(
          "POST " + path + " answered " + response.statusCode() + ": " + response.body());
    } catch (IOException e) {
      throw new IllegalStateException("POST " + path + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
