package dev.agentrt.toolrunner.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * http_get against a real HTTP server on 127.0.0.1 (the allowlisted IP literal): what it fetches,
 * and every way around the allowlist it refuses.
 */
class HttpGetTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private HttpServer server;
  private String base;
  private final AtomicInteger secretHits = new AtomicInteger();

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/page", e -> respond(e, 200, "hello from the page"));
    server.createContext("/big", e -> respond(e, 200, "x".repeat(100)));
    server.createContext(
        "/hop",
        e -> {
          e.getResponseHeaders().add("Location", "/page");
          respond(e, 302, "");
        });
    server.createContext(
        "/away",
        e -> {
          e.getResponseHeaders()
              .add("Location", "http://localhost:" + server.getAddress().getPort() + "/secret");
          respond(e, 302, "");
        });
    server.createContext(
        "/loop",
        e -> {
          e.getResponseHeaders().add("Location", "/loop");
          respond(e, 302, "");
        });
    server.createContext(
        "/secret",
        e -> {
          secretHits.incrementAndGet();
          respond(e, 200, "secret");
        });
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
  }

  private Toolbox toolbox(List<String> allowed, int maxBytes) {
    return Toolbox.of(
        List.of(
            new HttpGet(
                new HttpProperties(
                    allowed,
                    maxBytes,
                    3,
                    List.of("127.0.0.1"), // the test server's address
                    List.of(server.getAddress().getPort())))),
        ToolSettings.defaults(Duration.ofSeconds(30)));
  }

  private ToolOutcome get(String url) {
    return toolbox(List.of("127.0.0.1", "example.org"), 1000)
        .run("http_get", JSON.createObjectNode().put("url", url).toString());
  }

  @Test
  void fetchesAPageFromAnAllowedHost() {
    JsonNode page = JSON.readTree(get(base + "/page").json());

    assertThat(page.get("status").asInt()).isEqualTo(200);
    assertThat(page.get("body").asString()).isEqualTo("hello from the page");
    assertThat(page.get("truncated").asBoolean()).isFalse();
    assertThat(page.get("contentType").asString()).startsWith("text/plain");
  }

  @Test
  void followsARedirectToAnAllowedHost() {
    JsonNode page = JSON.readTree(get(base + "/hop").json());

    assertThat(page.get("url").asString()).isEqualTo(base + "/page");
    assertThat(page.get("body").asString()).isEqualTo("hello from the page");
  }

  @Test
  void cutsTheBodyAtTheSizeCap() {
    JsonNode page =
        JSON.readTree(
            toolbox(List.of("127.0.0.1"), 10)
                .run("http_get", "{\"url\":\"" + base + "/big\"}")
                .json());

    assertThat(page.get("body").asString()).isEqualTo("x".repeat(10));
    assertThat(page.get("truncated").asBoolean()).isTrue();
  }

  @Test
  void refusesARedirectToAHostNotAllowedWithoutFollowingIt() {
    ToolOutcome.Failure failure = failure(get(base + "/away"));

    assertThat(failure.errorType()).isEqualTo(ErrorType.not_allowed);
    assertThat(failure.message()).contains("redirected").contains("localhost");
    assertThat(secretHits).hasValue(0);
  }

  @Test
  void givesUpAfterTooManyRedirects() {
    assertThat(failure(get(base + "/loop")).message()).contains("more than 3");
  }

  @Test
  void refusesOtherHostsIpLiteralsUserInfoAndOtherSchemes() {
    int port = server.getAddress().getPort();
    for (String url :
        List.of(
            "http://localhost:" + port + "/secret",
            "http://127.0.0.2:" + port + "/secret",
            "http://[::1]:" + port + "/secret",
            "http://2130706433:" + port + "/secret",
            "http://example.org@localhost:" + port + "/secret",
            "http://127.0.0.1:" + port + "@localhost:" + port + "/secret",
            "http://user:pw@127.0.0.1:" + port + "/secret",
            "http://example.org.evil.com/",
            "file:///etc/passwd",
            "ftp://127.0.0.1/secret",
            "gopher://127.0.0.1:" + port + "/",
            "//127.0.0.1:" + port + "/secret",
            "not a url")) {
      ToolOutcome.Failure failure = failure(get(url));
      assertThat(failure.errorType()).as(url).isEqualTo(ErrorType.not_allowed);
    }
    assertThat(secretHits).hasValue(0);
  }

  @Test
  void anIpLiteralIsRefusedUnlessThatLiteralIsListed() {
    ToolOutcome refused =
        toolbox(List.of("localhost"), 1000).run("http_get", "{\"url\":\"" + base + "/page\"}");

    assertThat(failure(refused).errorType()).isEqualTo(ErrorType.not_allowed);
    assertThat(failure(refused).message()).contains("IP address 127.0.0.1 is not allowed");
  }

  @Test
  void isOnlyBuiltWhenSomeHostIsAllowed() {
    HttpProperties none = new HttpProperties(List.of(), 1000, 3);
    WebSearchProperties noKey = new WebSearchProperties(null, null, 5);

    assertThat(
            BuiltIns.configured(
                java.nio.file.Path.of("docs"), java.nio.file.Path.of("target/notes"), none, noKey))
        .extracting(Tool::name)
        .containsExactlyInAnyOrder(
            "search_docs", "read_doc", "calculator", "current_time", "write_note");
    assertThat(
            BuiltIns.configured(
                java.nio.file.Path.of("docs"),
                java.nio.file.Path.of("target/notes"),
                new HttpProperties(List.of(" example.org "), 1000, 3),
                new WebSearchProperties(" key ", null, 5)))
        .extracting(Tool::name)
        .contains("http_get", "web_search");
  }

  private static ToolOutcome.Failure failure(ToolOutcome outcome) {
    assertThat(outcome).isInstanceOf(ToolOutcome.Failure.class);
    return (ToolOutcome.Failure) outcome;
  }

  private static void respond(com.sun.net.httpserver.HttpExchange exchange, int status, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      exchange.getResponseBody().write(bytes);
    }
    exchange.close();
  }
}
