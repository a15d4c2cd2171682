package dev.agentrt.orchestrator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The orchestrator as it runs (a real KRaft broker, the real MongoDB-protocol server, the offline
 * model, Tomcat on a port) under what a careless or hostile client sends: a burst of messages into
 * one chat, bodies over the size limit, more event streams than a chat may hold. It answers each
 * with a 4xx and a reason, never a 5xx, and stores nothing it refused.
 *
 * <p>The orchestrator's clock stands still ({@link #MINUTE}), so the whole burst falls in one
 * minute however slow the machine is.
 */
class BoundsAtTheEdgeTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Clock MINUTE =
      Clock.fixed(Instant.parse("2026-11-22T12:00:00Z"), ZoneOffset.UTC);
  private static final int MESSAGES_PER_MINUTE = 30; // the default
  private static final int MAX_BODY = 1024 * 1024; // the default

  private static EmbeddedKafkaKraftBroker kafka;
  private static MongoServer mongoServer;
  private static ConfigurableApplicationContext app;
  private static MongoTemplate mongo;
  private static HttpClient http;
  private static int port;

  @BeforeAll
  static void start() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1);
    kafka.afterPropertiesSet();
    mongoServer = new MongoServer(new MemoryBackend());
    String mongoUri = "mongodb://127.0.0.1:" + mongoServer.bind().getPort() + "/agentrt";
    app =
        new SpringApplicationBuilder(OrchestratorApplication.class)
            .initializers(context -> context.getBeanFactory().registerSingleton("clock", MINUTE))
            .run(
                "--spring.kafka.bootstrap-servers=" + kafka.getBrokersAsString(),
                "--spring.mongodb.uri=" + mongoUri,
                "--server.port=0",
                "--agentrt.events.max-streams-per-chat=1",
                "--agentrt.events.poll-interval=20ms",
                "--agentrt.events.heartbeat=50ms");
    mongo = app.getBean(MongoTemplate.class);
    port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  @AfterAll
  static void stop() {
    if (http != null) {
      http.close();
    }
    if (app != null) {
      app.close();
    }
    mongoServer.shutdownNow();
    kafka.destroy();
  }

  @Test
  void aThousandMessagesAtOnceIntoOneChatTakeTheMinutesLimitAndRefuseTheRestWith429()
      throws Exception {
    String chatId = newChat();
    int total = 1_000;
    int threads = 8;
    AtomicInteger next = new AtomicInteger();
    CyclicBarrier start = new CyclicBarrier(threads);
    Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    Set<String> retryAfters = ConcurrentHashMap.newKeySet();
    Set<String> accepted = ConcurrentHashMap.newKeySet();
    List<Future<?>> posters = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      for (int t = 0; t < threads; t++) {
        posters.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                    // A greeting, which the offline model answers directly: a message no
                    // rule recognises would start a task for the fallback assistant.
                    HttpResponse<String> response =
                        post("/api/chats/" + chatId + "/messages", message("Hello " + i));
                    statuses
                        .computeIfAbsent(response.statusCode(), s -> new AtomicInteger())
                        .incrementAndGet();
                    if (response.statusCode() == 202) {
                      accepted.add(JSON.readTree(response.body()).path("id").asString());
                    } else {
                      response.headers().firstValue("Retry-After").ifPresent(retryAfters::add);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> poster : posters) {
        poster.get();
      }
    }

    assertThat(statuses.keySet()).as("only 202 and 429, never a 5xx").containsOnly(202, 429);
    assertThat(statuses.get(202).get()).isEqualTo(MESSAGES_PER_MINUTE);
    assertThat(statuses.get(429).get()).isEqualTo(total - MESSAGES_PER_MINUTE);
    assertThat(retryAfters).as("the minute frees in 60 s").containsExactly("60");
    assertThat(accepted).hasSize(MESSAGES_PER_MINUTE);
    assertThat(personsMessages(chatId))
        .as("every accepted message stored once, nothing of the refused ones")
        .extracting(ChatMessage::id)
        .containsExactlyInAnyOrderElementsOf(accepted);
    assertThat(recentTimes(chatId)).as("the window's memory").hasSize(MESSAGES_PER_MINUTE);

    // The OpenAI-compatible endpoint counts the same messages, and refuses like OpenAI does.
    HttpResponse<String> openAi =
        http.send(
            HttpRequest.newBuilder(uri("/v1/chat/completions"))
                .header("Content-Type", "application/json")
                .header("X-Chat-Id", chatId)
                .POST(
                    BodyPublishers.ofString(
                        "{\"messages\":[{\"role\":\"user\",\"content\":\"one more\"}]}"))
                .build(),
            BodyHandlers.ofString());
    assertThat(openAi.statusCode()).isEqualTo(429);
    assertThat(openAi.headers().firstValue("Retry-After")).hasValue("60");
    JsonNode rateLimited = JSON.readTree(openAi.body()).path("error");
    assertThat(rateLimited.path("type").asString()).isEqualTo("requests");
    assertThat(rateLimited.path("code").asString()).isEqualTo("rate_limit_exceeded");

    // The accepted ones go on through the broker to their decisions, each answered once.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(answers(chatId))
                    .extracting(ChatMessage::id)
                    .containsExactlyInAnyOrderElementsOf(
                        accepted.stream().map(id -> Ids.derived(id, "answer")).toList()));
    assertThat(personsMessages(chatId)).hasSize(MESSAGES_PER_MINUTE);
  }

  @Test
  void aBodyOverTheLimitIsRefusedWith413InEachApisShapeWhetherItsLengthIsDeclaredOrNot()
      throws Exception {
    String chatId = newChat();
    String messages = "/api/chats/" + chatId + "/messages";
    String completions = "/v1/chat/completions";
    String reason = "the request body is larger than 1048576 bytes (agentrt.http.max-request-size)";

    for (boolean chunked : List.of(false, true)) {
      HttpResponse<String> chat = post(messages, sent(oversize(), chunked));
      assertThat(chat.statusCode()).as("chunked: %s", chunked).isEqualTo(413);
      assertThat(chat.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
      assertThat(JSON.readTree(chat.body()).path("detail").asString()).isEqualTo(reason);

      HttpResponse<String> openAi = post(completions, sent(oversize(), chunked));
      assertThat(openAi.statusCode()).as("chunked: %s", chunked).isEqualTo(413);
      JsonNode error = JSON.readTree(openAi.body()).path("error");
      assertThat(error.path("message").asString()).isEqualTo(reason);
      assertThat(error.path("code").asString()).isEqualTo("request_too_large");
    }
    assertThat(personsMessages(chatId)).isEmpty();

    HttpResponse<String> small =
        post(messages, sent(message("a chunked body under the limit"), true));
    assertThat(small.statusCode()).isEqualTo(202);
    assertThat(personsMessages(chatId))
        .extracting(ChatMessage::content)
        .containsExactly("a chunked body under the limit");
  }

  @Test
  void aChatHoldsNoMoreStreamsThanItsLimitAndAClosedStreamsPlaceIsTakenAgain() throws Exception {
    String chatId = newChat();
    Socket first = openStream(chatId);
    assertThat(statusLine(first)).isEqualTo("HTTP/1.1 200 ");

    try (Socket second = openStream(chatId)) {
      assertThat(statusLine(second)).isEqualTo("HTTP/1.1 429 ");
      assertThat(JSON.readTree(body(second)).path("detail").asString())
          .isEqualTo(
              "chat "
                  + chatId
                  + " has 1 streams open, the most one chat may have"
                  + " (agentrt.events.max-streams-per-chat); close one first");
    }

    first.close(); // the client goes away; the stream's next heartbeat finds it gone
    List<Socket> opened = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              Socket again = openStream(chatId);
              opened.add(again);
              return statusLine(again).startsWith("HTTP/1.1 200");
            });
    for (Socket socket : opened) {
      socket.close();
    }
  }

  // --- helpers --------------------------------------------------------------------------------

  private static String newChat() throws Exception {
    HttpResponse<String> created = post("/api/chats", "{\"title\":\"t\"}");
    assertThat(created.statusCode()).isEqualTo(201);
    return JSON.readTree(created.body()).path("id").asString();
  }

  private static String message(String content) {
    return "{\"content\":\"" + content + "\"}";
  }

  /** A valid request for either API, padded with a field both ignore to just over the limit. */
  private static String oversize() {
    return "{\"content\":\"hi\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"padding\":\""
        + "x".repeat(MAX_BODY)
        + "\"}";
  }

  /**
   * {@code body} with its length declared, or {@code chunked}: the server learns its length only by
   * reading it.
   */
  private static BodyPublisher sent(String body, boolean chunked) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return chunked
        ? BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))
        : BodyPublishers.ofByteArray(bytes);
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return post(path, BodyPublishers.ofString(body));
  }

  private static HttpResponse<String> post(String path, BodyPublisher body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(body)
            .build(),
        BodyHandlers.ofString());
  }

  private static URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private static Socket openStream(String chatId) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(10_000);
    socket
        .getOutputStream()
        .write(
            ("GET /api/chats/"
                    + chatId
                    + "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
    return socket;
  }

  private static String statusLine(Socket socket) throws IOException {
    return line(socket.getInputStream());
  }

  /** One line, without its CRLF. */
  private static String line(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int c = in.read(); c != -1 && c != '\r'; c = in.read()) {
      line.append((char) c);
    }
    in.read(); // LF
    return line.toString();
  }

  /** The rest of a response whose status line was read: its chunked body after the headers. */
  private static String body(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    String headers = "";
    while (!headers.endsWith("\r\n\r\n")) {
      headers += (char) in.read();
    }
    assertThat(headers).containsIgnoringCase("Transfer-Encoding: chunked");
    StringBuilder body = new StringBuilder();
    for (int size = chunkSize(in); size > 0; size = chunkSize(in)) {
      body.append(new String(in.readNBytes(size), StandardCharsets.UTF_8));
      in.readNBytes(2); // CRLF
    }
    return body.toString();
  }

  private static int chunkSize(InputStream in) throws IOException {
    return Integer.parseInt(line(in), 16);
  }

  private static List<ChatMessage> personsMessages(String chatId) {
    return mongo.find(
        Query.query(Criteria.where("chatId").is(chatId).and("role").is(ChatMessage.USER)),
        ChatMessage.class);
  }

  private static List<ChatMessage> answers(String chatId) {
    return mongo.find(
        Query.query(Criteria.where("chatId").is(chatId).and("role").is(ChatMessage.ASSISTANT)),
        ChatMessage.class);
  }

  private static List<Date> recentTimes(String chatId) {
    Document chat =
        mongo.getCollection(Collections.CHATS).find(new Document("_id", chatId)).first();
    return chat.getList("recentMessages", Date.class);
  }
}
