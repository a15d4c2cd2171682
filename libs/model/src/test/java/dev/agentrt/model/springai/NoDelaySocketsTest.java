package dev.agentrt.model.springai;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.Call;
import okhttp3.Connection;
import okhttp3.EventListener;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A model call's connection has Nagle's algorithm off once the call returns. */
class NoDelaySocketsTest {

  private HttpServer server;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
    server.createContext(
        "/v1/chat/completions",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          byte[] body = "{}".getBytes();
          exchange.sendResponseHeaders(200, body.length);
          try (var out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void theConnectionOfACallHasNagleOffAfterIt() throws IOException {
    assertThat(noDelayAfterACall(new OkHttpClient.Builder().addInterceptor(new NoDelaySockets())))
        .isTrue();
  }

  /** What the interceptor is for: OkHttp's own connections keep Nagle's algorithm on. */
  @Test
  void withoutItTheConnectionKeepsNagleOn() throws IOException {
    assertThat(noDelayAfterACall(new OkHttpClient.Builder())).isFalse();
  }

  private boolean noDelayAfterACall(OkHttpClient.Builder client) throws IOException {
    List<Connection> used = new CopyOnWriteArrayList<>();
    OkHttpClient http =
        client
            .eventListener(
                new EventListener() {
                  @Override
                  public void connectionAcquired(Call call, Connection connection) {
                    used.add(connection);
                  }
                })
            .build();
    Request request =
        new Request.Builder()
            .url("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions")
            .post(RequestBody.create(new byte[40_000], MediaType.get("application/json")))
            .build();
    try (Response response = http.newCall(request).execute()) {
      response.body().string();
    }
    http.dispatcher().executorService().shutdown();
    assertThat(used).hasSize(1);
    boolean noDelay = used.getFirst().socket().getTcpNoDelay();
    http.connectionPool().evictAll();
    return noDelay;
  }
}
