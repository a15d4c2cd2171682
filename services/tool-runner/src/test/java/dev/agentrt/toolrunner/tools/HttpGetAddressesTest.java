package dev.agentrt.toolrunner.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
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
import tools.jackson.databind.json.JsonMapper;

/**
 * http_get and the addresses inside this network: even with every name on the host allowlist, it
 * connects to no loopback, private, link-local or metadata address unless that exact address is
 * allowed, whether the URL names it, a name resolves to it, or a redirect points at it. The allowed
 * server here is 127.0.0.2 (allowed exactly); a "secret" server on 127.0.0.1 (not allowed) counts
 * every request that reaches it.
 */
class HttpGetAddressesTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private HttpServer allowed;
  private HttpServer secret;
  private final AtomicInteger secretHits = new AtomicInteger();
  private int allowedPort;
  private int secretPort;

  @BeforeEach
  void startServers() throws IOException {
    secret = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    secret.createContext(
        "/",
        e -> {
          secretHits.incrementAndGet();
          respond(e, 200, "secret");
        });
    secret.start();
    secretPort = secret.getAddress().getPort();
    allowed = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0), 0);
    allowed.createContext("/page", e -> respond(e, 200, "public page"));
    allowed.createContext(
        "/to",
        e -> {
          e.getResponseHeaders().add("Location", e.getRequestURI().getQuery());
          respond(e, 302, "");
        });
    allowed.start();
    allowedPort = allowed.getAddress().getPort();
  }

  @AfterEach
  void stopServers() {
    allowed.stop(0);
    secret.stop(0);
  }

  private ToolOutcome get(String url) {
    HttpProperties properties =
        new HttpProperties(
            List.of("127.0.0.2", "127.0.0.1", "[::1]", "169.254.169.254", "10.0.0.1", "localhost"),
            1000,
            3,
            List.of("127.0.0.2"),
            List.of(80, allowedPort, secretPort));
    return Toolbox.of(
            List.of(new HttpGet(properties)), ToolSettings.defaults(Duration.ofSeconds(30)))
        .run("http_get", JSON.createObjectNode().put("url", url).toString());
  }

  private List<String> internalUrls() {
    return List.of(
        "http://127.0.0.1:" + secretPort + "/",
        "http://[::1]:" + secretPort + "/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://localhost:" + secretPort + "/");
  }

  @Test
  void fetchesFromAnInternalAddressThatIsAllowedExactly() {
    ToolOutcome outcome = get("http://127.0.0.2:" + allowedPort + "/page");

    assertThat(outcome).isInstanceOf(ToolOutcome.Success.class);
    assertThat(JSON.readTree(outcome.json()).path("body").asString()).isEqualTo("public page");
  }

  @Test
  void refusesLoopbackPrivateLinkLocalAndMetadataAddressesAndNamesResolvingToThem() {
    for (String url : internalUrls()) {
      ToolOutcome.Failure failure = failure(get(url));
      assertThat(failure.errorType()).as(url).isEqualTo(ErrorType.not_allowed);
      assertThat(failure.message()).as(url).contains("inside this network");
    }
    assertThat(failure(get("http://localhost:" + secretPort + "/")).message())
        .contains("localhost is at");
    assertThat(secretHits).hasValue(0);
  }

  @Test
  void refusesARedirectToAnyOfThem() {
    for (String target : internalUrls()) {
      ToolOutcome.Failure failure =
          failure(get("http://127.0.0.2:" + allowedPort + "/to?" + target));
      assertThat(failure.errorType()).as(target).isEqualTo(ErrorType.not_allowed);
      assertThat(failure.message())
          .as(target)
          .contains("redirected")
          .contains("inside this network");
    }
    assertThat(secretHits).hasValue(0);
  }

  @Test
  void refusesPortsThatAreNotAllowed() {
    ToolOutcome.Failure failure = failure(get("http://127.0.0.2:22/"));

    assertThat(failure.errorType()).isEqualTo(ErrorType.not_allowed);
    assertThat(failure.message()).contains("port 22 is not allowed");
  }

  @Test
  void classifiesAddresses() throws Exception {
    for (String internal :
        List.of(
            "127.0.0.1",
            "::1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "fe80::1",
            "fd00:ec2::254",
            "100.100.100.200",
            "0.0.0.0",
            "::",
            "::ffff:127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "224.0.0.1",
            "255.255.255.255")) {
      assertThat(AddressGuard.internal(InetAddress.getByName(internal))).as(internal).isTrue();
    }
    for (String external : List.of("93.184.216.34", "2606:4700::1111", "8.8.8.8")) {
      assertThat(AddressGuard.internal(InetAddress.getByName(external))).as(external).isFalse();
    }
  }

  private static ToolOutcome.Failure failure(ToolOutcome outcome) {
    assertThat(outcome).isInstanceOf(ToolOutcome.Failure.class);
    return (ToolOutcome.Failure) outcome;
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      exchange.getResponseBody().write(bytes);
    }
    exchange.close();
  }
}
