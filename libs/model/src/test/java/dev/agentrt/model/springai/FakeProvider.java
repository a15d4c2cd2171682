package dev.agentrt.model.springai;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A provider's HTTP endpoint on 127.0.0.1: answers each request with the next scripted response and
 * keeps what it was sent.
 */
final class FakeProvider implements AutoCloseable {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /**
   * One scripted answer.
   *
   * @param held sent only when the provider closes: slower than any client timeout
   */
  record Response(int status, Map<String, String> headers, String body, boolean held) {

    static Response ok(String body) {
      return new Response(200, Map.of(), body, false);
    }

    static Response status(int status, String body) {
      return new Response(status, Map.of(), body, false);
    }

    Response withHeader(String name, String value) {
      return new Response(status, Map.of(name, value), body, held);
    }

    Response heldUntilClosed() {
      return new Response(status, headers, body, true);
    }
  }

  /** What the provider was sent. */
  record Request(String path, Map<String, List<String>> headers, String body) {

    JsonNode json() {
      return JSON.readTree(body);
    }

    String header(String name) {
      return headers.entrySet().stream()
          .filter(header -> header.getKey().equalsIgnoreCase(name))
          .map(header -> header.getValue().getFirst())
          .findFirst()
          .orElse(null);
    }
  }

  private final HttpServer server;
  private final ConcurrentLinkedQueue<Response> responses = new ConcurrentLinkedQueue<>();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final CountDownLatch closing = new CountDownLatch(1);

  FakeProvider() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext(
        "/",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          requests.add(
              new Request(
                  exchange.getRequestURI().getPath(),
                  Map.copyOf(exchange.getRequestHeaders()),
                  body));
          Response response = responses.poll();
          if (response == null) {
            response = Response.status(500, "{\"error\":{\"message\":\"nothing scripted\"}}");
          }
          if (response.held()) {
            try {
              closing.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          response.headers().forEach(exchange.getResponseHeaders()::add);
          byte[] bytes = response.body().getBytes(StandardCharsets.UTF_8);
          try {
            exchange.sendResponseHeaders(response.status(), bytes.length);
            exchange.getResponseBody().write(bytes);
          } catch (IOException clientGone) {
            // the client timed out and closed the connection
          }
          exchange.close();
        });
    server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
    server.start();
  }

  FakeProvider answer(Response... scripted) {
    responses.addAll(List.of(scripted));
    return this;
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  List<Request> requests() {
    return requests;
  }

  Request lastRequest() {
    return requests.getLast();
  }

  @Override
  public void close() {
    closing.countDown();
    server.stop(0);
  }
}
