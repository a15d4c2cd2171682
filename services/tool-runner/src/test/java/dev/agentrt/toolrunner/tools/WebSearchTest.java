package dev.agentrt.toolrunner.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** web_search over HTTP to a local stand-in for Tavily's search endpoint. */
class WebSearchTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private HttpServer tavily;
  private final AtomicReference<String> request = new AtomicReference<>();
  private final AtomicReference<String> authorization = new AtomicReference<>();
  private volatile int status = 200;

  @BeforeEach
  void start() throws IOException {
    tavily = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    tavily.createContext(
        "/search",
        exchange -> {
          request.set(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          authorization.set(exchange.getRequestHeaders().getFirst("Authorization"));
          byte[] body =
              """
              {"query":"q","results":[{"title":"Kafka","url":"https://kafka.apache.org/",
               "content":"A distributed event store.","score":0.9,"raw_content":null}]}"""
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(status, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    tavily.start();
  }

  @AfterEach
  void stop() {
    tavily.stop(0);
  }

  private Toolbox toolbox() {
    URI url = URI.create("http://127.0.0.1:" + tavily.getAddress().getPort() + "/search");
    return Toolbox.of(
        List.of(new WebSearch(new WebSearchProperties("tvly-test", url, 3))),
        ToolSettings.defaults(Duration.ofSeconds(30)));
  }

  @Test
  void sendsTheQueryWithTheKeyAndReturnsTheResults() {
    ToolOutcome outcome = toolbox().run("web_search", "{\"query\":\"what is kafka\"}");

    assertThat(JSON.readTree(outcome.json()))
        .isEqualTo(
            JSON.readTree(
                "{\"results\":[{\"title\":\"Kafka\",\"url\":\"https://kafka.apache.org/\","
                    + "\"content\":\"A distributed event store.\"}]}"));
    JsonNode sent = JSON.readTree(request.get());
    assertThat(sent.get("query").asString()).isEqualTo("what is kafka");
    assertThat(sent.get("max_results").asInt()).isEqualTo(3);
    assertThat(authorization.get()).isEqualTo("Bearer tvly-test");
  }

  @Test
  void aFailingProviderIsAToolError() {
    status = 401;

    ToolOutcome outcome = toolbox().run("web_search", "{\"query\":\"kafka\"}");

    assertThat(outcome)
        .isEqualTo(
            new ToolOutcome.Failure(ErrorType.tool_error, "web search failed with HTTP 401"));
  }
}
