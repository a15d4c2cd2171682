package dev.agentrt.orchestrator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.agentrt.orchestrator.testing.RunningOrchestrator;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * The orchestrator as a person runs it on their machine (no users: the local default), against what
 * a web page they visit could make their browser send: a {@code text/plain} or form post, a post
 * from another origin, a request under a rebound DNS name. Each is refused before anything is
 * stored; the page's own requests pass, and pages are served with a strict Content-Security-Policy.
 * Requests are written on a raw socket, so the {@code Host} header is exactly what a browser sends.
 */
class BrowserEdgeTest {

  private static RunningOrchestrator orchestrator;
  private static MongoTemplate mongo;
  private static int port;

  @BeforeAll
  static void start() {
    orchestrator = RunningOrchestrator.start("--agentrt.security.allowed-hosts=agents.example.org");
    mongo = orchestrator.mongo();
    port = orchestrator.port();
  }

  @AfterAll
  static void stop() {
    if (orchestrator != null) {
      orchestrator.close();
    }
  }

  @BeforeEach
  void empty() {
    mongo.dropCollection(Chat.class);
    mongo.dropCollection(ChatMessage.class);
  }

  @Test
  void withoutUsersThePersonAtTheMachineNeedsNoKey() throws Exception {
    Reply created = send("POST", "/api/chats", "localhost:" + port, "application/json", "{}");
    assertThat(created.status()).isEqualTo(201);
    var id = java.util.regex.Pattern.compile("\"id\":\"([^\"]+)\"").matcher(created.body());
    assertThat(id.find()).isTrue();
    assertThat(send("GET", "/api/chats", "localhost:" + port, null, null).body())
        .contains(id.group(1));
  }

  @Test
  void withoutUsersItListensOnLoopbackOnly() {
    Optional<InetAddress> outside = nonLoopbackAddress();
    assumeTrue(outside.isPresent(), "this machine has no address but loopback");

    assertThatThrownBy(
            () -> {
              try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(outside.get(), port), 2_000);
              }
            })
        .isInstanceOf(IOException.class);
  }

  @Test
  void aPlainTextOrFormPostIsRefusedWith415AndStoresNothing() throws Exception {
    String host = "127.0.0.1:" + port;
    Reply text = send("POST", "/api/chats", host, "text/plain", "{}");
    Reply form =
        send("POST", "/v1/chat/completions", host, "application/x-www-form-urlencoded", "a=b");
    Reply completion =
        send(
            "POST",
            "/v1/chat/completions",
            host,
            "text/plain",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"spend my budget\"}]}");

    assertThat(text.status()).isEqualTo(415);
    assertThat(text.body()).contains("must be JSON");
    assertThat(form.status()).isEqualTo(415);
    assertThat(completion.status()).isEqualTo(415);
    assertThat(completion.body()).contains("\"code\":\"unsupported_media_type\"");
    assertThat(mongo.findAll(Chat.class)).isEmpty();
    assertThat(mongo.findAll(ChatMessage.class)).isEmpty();
  }

  @Test
  void aPostFromAnotherSiteIsRefusedWith403() throws Exception {
    String host = "localhost:" + port;
    Reply otherOrigin =
        send("POST", "/api/chats", host, "application/json", "{}", "Origin: https://evil.example");
    Reply crossSite =
        send("POST", "/api/tasks/t-1/cancel", host, null, null, "Sec-Fetch-Site: cross-site");
    Reply sameOrigin =
        send("POST", "/api/chats", host, "application/json", "{}", "Origin: http://" + host);

    assertThat(otherOrigin.status()).isEqualTo(403);
    assertThat(crossSite.status()).isEqualTo(403);
    assertThat(sameOrigin.status()).isEqualTo(201);
    assertThat(mongo.findAll(Chat.class)).hasSize(1);
  }

  @Test
  void aNameTheServerIsNotServedAsIsRefusedWith421() throws Exception {
    Reply rebound = send("GET", "/api/chats", "attacker.example:" + port, null, null);
    Reply reboundPost =
        send("POST", "/api/chats", "attacker.example:" + port, "application/json", "{}");
    Reply configured = send("GET", "/api/chats", "agents.example.org", null, null);
    Reply ipv6 = send("GET", "/api/chats", "[::1]:" + port, null, null);

    assertThat(rebound.status()).isEqualTo(421);
    assertThat(rebound.body()).contains("attacker.example");
    assertThat(reboundPost.status()).isEqualTo(421);
    assertThat(configured.status()).isEqualTo(200);
    assertThat(ipv6.status()).isEqualTo(200);
    assertThat(mongo.findAll(Chat.class)).isEmpty();
  }

  @Test
  void pagesComeWithAStrictContentSecurityPolicy() throws Exception {
    Reply page = send("GET", "/", "localhost:" + port, null, null);

    assertThat(page.status()).isEqualTo(200);
    assertThat(page.header("Content-Security-Policy"))
        .contains("default-src 'self'")
        .contains("img-src 'self' data:")
        .contains("frame-ancestors 'none'");
    assertThat(page.header("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(page.header("X-Frame-Options")).isEqualTo("DENY");
  }

  private record Reply(int status, String head, String body) {
    @Nullable String header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
          return line.substring(colon + 1).strip();
        }
      }
      return null;
    }
  }

  private static Reply send(
      String method,
      String path,
      String host,
      @Nullable String contentType,
      @Nullable String body,
      String... headers)
      throws IOException {
    byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    StringBuilder request = new StringBuilder();
    request.append(method).append(' ').append(path).append(" HTTP/1.1\r\n");
    request.append("Host: ").append(host).append("\r\n");
    request.append("Connection: close\r\n");
    if (contentType != null) {
      request.append("Content-Type: ").append(contentType).append("\r\n");
    }
    if (body != null || !method.equals("GET")) {
      request.append("Content-Length: ").append(content.length).append("\r\n");
    }
    for (String header : headers) {
      request.append(header).append("\r\n");
    }
    request.append("\r\n");
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.UTF_8));
      out.write(content);
      out.flush();
      InputStream in = socket.getInputStream();
      String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int end = response.indexOf("\r\n\r\n");
      String head = end < 0 ? response : response.substring(0, end);
      int status = Integer.parseInt(head.substring(9, 12));
      return new Reply(status, head, end < 0 ? "" : response.substring(end + 4));
    }
  }

  private static Optional<InetAddress> nonLoopbackAddress() {
    try {
      return NetworkInterface.networkInterfaces()
          .filter(
              nic -> {
                try {
                  return nic.isUp() && !nic.isLoopback();
                } catch (SocketException e) {
                  return false;
                }
              })
          .flatMap(NetworkInterface::inetAddresses)
          .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress())
          .findFirst();
    } catch (SocketException e) {
      return Optional.empty();
    }
  }
}
