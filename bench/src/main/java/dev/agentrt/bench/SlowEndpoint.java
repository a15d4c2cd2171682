package dev.agentrt.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What {@code http_get} calls in the parallel-tools scenario: {@code GET /sleep?ms=T&id=..} answers
 * after T ms, on a virtual thread per request, and records when each call arrived.
 */
final class SlowEndpoint implements AutoCloseable {

  record Call(String query, long arrivedAt) {}

  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();

  SlowEndpoint() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(executor);
    server.createContext("/sleep", this::sleep);
    server.start();
  }

  /** {@code http://127.0.0.1:<port>}. */
  int port() {
    return server.getAddress().getPort();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + port();
  }

  List<Call> calls() {
    return List.copyOf(calls);
  }

  void reset() {
    calls.clear();
  }

  private void sleep(HttpExchange exchange) throws IOException {
    String query = String.valueOf(exchange.getRequestURI().getQuery());
    calls.add(new Call(query, System.currentTimeMillis()));
    long ms = 0;
    for (String pair : query.split("&")) {
      if (pair.startsWith("ms=")) {
        ms = Long.parseLong(pair.substring(3));
      }
    }
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    byte[] body = ("{\"slept_ms\":" + ms + "}").getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, body.length);
    try (var out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
