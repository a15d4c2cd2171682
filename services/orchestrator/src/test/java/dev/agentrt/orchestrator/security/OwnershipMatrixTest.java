package dev.agentrt.orchestrator.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.orchestrator.testing.RunningOrchestrator;
import dev.agentrt.orchestrator.testing.Stored;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Plan;
import dev.agentrt.store.PlanNode;
import dev.agentrt.store.PlanNodeStatus;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every endpoint of the orchestrator against one of alice's chats, called by alice (the owner), by
 * bob (another user), with no credentials, and by carol (an admin): the orchestrator as it runs on
 * a real broker and MongoDB-protocol server, with API keys. Another user learns nothing: {@code
 * 404} as for a chat that does not exist, and no response to him holds any of alice's content.
 */
class OwnershipMatrixTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String ALICE = "alice-key-0123456789abcdef";
  private static final String BOB = "bob-key-0123456789abcdef";
  private static final String CAROL = "carol-key-0123456789abcdef";
  private static final String SECRET_TITLE = "alice's secret plans";
  private static final String SECRET_MESSAGE = "my bank PIN is 4242";
  private static final String SECRET_INSTRUCTION = "look up alice's medical records";

  private enum Caller {
    OWNER(ALICE),
    OTHER(BOB),
    NONE(null),
    ADMIN(CAROL);

    final @Nullable String key;

    Caller(@Nullable String key) {
      this.key = key;
    }
  }

  private static RunningOrchestrator orchestrator;
  private static MongoTemplate mongo;
  private static HttpClient http;
  private static int port;

  @BeforeAll
  static void start() {
    orchestrator =
        RunningOrchestrator.start(
            "--agentrt.security.api-keys=alice=" + ALICE + ",bob=" + BOB + ",carol=" + CAROL,
            "--agentrt.security.admins=carol",
            "--agentrt.openai.reply-timeout=1ms",
            "--agentrt.events.poll-interval=20ms");
    mongo = orchestrator.mongo();
    port = orchestrator.port();
    http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  @AfterAll
  static void stop() {
    if (http != null) {
      http.close();
    }
    if (orchestrator != null) {
      orchestrator.close();
    }
  }

  /** One request and what each caller gets. */
  private record Row(
      String name,
      String method,
      String path,
      @Nullable String body,
      Map<String, String> headers,
      Map<Caller, Integer> expected) {}

  /**
   * A completion that reached the chat: its reply (200), or none within the 1 ms reply timeout
   * (504); which of the two depends on how soon the offline model's decision is stored.
   */
  private static final int REPLY_OR_TIMEOUT = 0;

  private static Map<Caller, Integer> expect(int owner, int other, int none, int admin) {
    return Map.of(Caller.OWNER, owner, Caller.OTHER, other, Caller.NONE, none, Caller.ADMIN, admin);
  }

  @Test
  void everyEndpointAnswersEachCallerAsTheOwnershipRulesSay() throws Exception {
    String chat = created(Caller.OWNER, SECRET_TITLE);
    post(
        Caller.OWNER,
        "/api/chats/" + chat + "/messages",
        "{\"content\":\"" + SECRET_MESSAGE + "\"}");
    Task task =
        new Stored(mongo)
            .startedTask(chat, SECRET_INSTRUCTION, TaskStatus.running, SubAgentStatus.active, null)
            .task();
    Task node =
        new Stored(mongo)
            .startedTask(chat, SECRET_INSTRUCTION, TaskStatus.running, SubAgentStatus.active, null)
            .task();
    Plan plan = plan(chat, node);
    String json = "{\"content\":\"hello\"}";
    String completion =
        "{\"model\":\"agentrt\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";

    List<Row> rows =
        List.of(
            new Row(
                "chat", "GET", "/api/chats/" + chat, null, Map.of(), expect(200, 404, 401, 200)),
            new Row(
                "messages",
                "GET",
                "/api/chats/" + chat + "/messages",
                null,
                Map.of(),
                expect(200, 404, 401, 200)),
            new Row(
                "tasks",
                "GET",
                "/api/chats/" + chat + "/tasks",
                null,
                Map.of(),
                expect(200, 404, 401, 200)),
            new Row(
                "events",
                "GET",
                "/api/chats/" + chat + "/events",
                null,
                Map.of(),
                expect(200, 404, 401, 200)),
            new Row(
                "task",
                "GET",
                "/api/tasks/" + task.id(),
                null,
                Map.of(),
                expect(200, 404, 401, 200)),
            new Row(
                "post message",
                "POST",
                "/api/chats/" + chat + "/messages",
                json,
                Map.of(),
                expect(202, 404, 401, 404)),
            new Row(
                "/v1 with X-Chat-Id",
                "POST",
                "/v1/chat/completions",
                completion,
                Map.of("X-Chat-Id", chat),
                expect(REPLY_OR_TIMEOUT, 404, 401, 404)),
            new Row(
                "feedback",
                "POST",
                "/api/chats/" + chat + "/feedback",
                "{\"type\":\"guidance\",\"taskId\":\"" + task.id() + "\",\"text\":\"Be brief\"}",
                Map.of(),
                expect(202, 404, 401, 404)),
            new Row(
                "/v1 feedback",
                "POST",
                "/v1/orchestration/" + chat + "/feedback",
                "{\"type\":\"guidance\",\"taskId\":\"" + task.id() + "\",\"text\":\"Be brief\"}",
                Map.of(),
                expect(202, 404, 401, 404)),
            new Row(
                "replay a turn (the task has taken none)",
                "POST",
                "/api/tasks/" + task.id() + "/turns/1/replay",
                null,
                Map.of(),
                expect(409, 404, 401, 404)),
            new Row(
                "cancel",
                "POST",
                "/api/tasks/" + task.id() + "/cancel",
                null,
                Map.of(),
                expect(202, 404, 401, 404)),
            new Row(
                "plans",
                "GET",
                "/api/chats/" + chat + "/plans",
                null,
                Map.of(),
                expect(200, 404, 401, 200)),
            new Row(
                "plan",
                "GET",
                "/api/plans/" + plan.id(),
                null,
                Map.of(),
                expect(200, 404, 401, 200)),
            new Row(
                "cancel plan",
                "POST",
                "/api/plans/" + plan.id() + "/cancel",
                null,
                Map.of(),
                expect(202, 404, 401, 404)),
            new Row("models", "GET", "/v1/models", null, Map.of(), expect(200, 200, 401, 200)));

    List<String> mismatches = new ArrayList<>();
    for (Row row : rows) {
      // The owner last: their cancel ends the task the others try to cancel first.
      for (Caller caller : List.of(Caller.OTHER, Caller.NONE, Caller.ADMIN, Caller.OWNER)) {
        Response response = call(caller, row.method(), row.path(), row.body(), row.headers());
        int expected = row.expected().get(caller);
        boolean served = response.status() == 200 || response.status() == 504;
        if (expected == REPLY_OR_TIMEOUT ? !served : response.status() != expected) {
          mismatches.add(
              row.name() + " as " + caller + ": " + response.status() + " not " + expected);
        }
        if (caller == Caller.NONE) {
          assertThat(response.wwwAuthenticate()).as(row.name()).startsWith("Bearer");
        }
        if (caller == Caller.OTHER || caller == Caller.NONE) {
          assertThat(response.body())
              .as(row.name() + " as " + caller)
              .doesNotContain(SECRET_TITLE, SECRET_MESSAGE, SECRET_INSTRUCTION);
        }
        if (caller == Caller.ADMIN && expected == 200 && row.path().startsWith("/api")) {
          assertThat(response.body())
              .as(row.name() + " as admin")
              .containsAnyOf(SECRET_TITLE, SECRET_MESSAGE, SECRET_INSTRUCTION, "following chat");
        }
      }
    }
    assertThat(mismatches).isEmpty();
    assertThat(mongo.findById(task.id(), Task.class).status()).isEqualTo(TaskStatus.cancelled);
    assertThat(mongo.findById(node.id(), Task.class).status()).isEqualTo(TaskStatus.cancelled);
    assertThat(mongo.findById(plan.id(), Plan.class).cancelRequested()).isTrue();
    List<String> contents =
        mongo
            .find(
                Query.query(Criteria.where("chatId").is(chat).and("role").is(ChatMessage.USER)),
                ChatMessage.class)
            .stream()
            .map(ChatMessage::content)
            .toList();
    assertThat(contents).containsExactlyInAnyOrder(SECRET_MESSAGE, "hello", "hello");
  }

  @Test
  void eachUserListsOnlyTheirOwnChatsAndAnAdminListsAll() throws Exception {
    String alices = created(Caller.OWNER, "alice's list entry");
    String bobs = created(Caller.OTHER, "bob's list entry");

    assertThat(listedIds(Caller.OWNER)).contains(alices).doesNotContain(bobs);
    assertThat(listedIds(Caller.OTHER)).contains(bobs).doesNotContain(alices);
    assertThat(listedIds(Caller.ADMIN)).contains(alices, bobs);
    assertThat(call(Caller.NONE, "GET", "/api/chats", null, Map.of()).status()).isEqualTo(401);
  }

  @Test
  void aWrongKeyIsRefusedWith401AndTheHealthCheckStaysOpen() throws Exception {
    HttpResponse<String> wrong =
        http.send(
            request("GET", "/api/chats", null, Map.of())
                .header("Authorization", "Bearer not-a-key-0123456789")
                .build(),
            BodyHandlers.ofString());
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.headers().firstValue("WWW-Authenticate").orElse(""))
        .startsWith("Bearer")
        .contains("invalid_token");

    Response health = call(Caller.NONE, "GET", "/actuator/health", null, Map.of());
    // open: its state, UP or DOWN (no model, say), never a demand for credentials
    assertThat(health.status()).as(health.body()).isIn(200, 503);
    assertThat(health.body()).contains("\"status\"");
  }

  /**
   * A plan of the chat whose one node runs as {@code task}: the person's message as its request.
   */
  private static Plan plan(String chat, Task task) {
    Instant now = Instant.now();
    return mongo.insert(
        Plan.start(
            "plan-of-" + chat,
            chat,
            "message-of-" + chat,
            SECRET_MESSAGE,
            null,
            List.of(
                new PlanNode(
                    "r1",
                    "researcher",
                    SECRET_INSTRUCTION,
                    List.of(),
                    PlanNodeStatus.running,
                    task.id(),
                    now,
                    null,
                    null,
                    null,
                    null)),
            now));
  }

  private record Response(
      int status, String body, @Nullable String wwwAuthenticate, @Nullable String chatId) {}

  private static String created(Caller caller, String title) throws Exception {
    Response response = post(caller, "/api/chats", "{\"title\":\"" + title + "\"}");
    assertThat(response.status()).isEqualTo(201);
    return JSON.readTree(response.body()).path("id").asString();
  }

  private static List<String> listedIds(Caller caller) throws Exception {
    Response response = call(caller, "GET", "/api/chats?size=200", null, Map.of());
    assertThat(response.status()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    for (JsonNode chat : JSON.readTree(response.body())) {
      ids.add(chat.path("id").asString());
    }
    return ids;
  }

  private static Response post(Caller caller, String path, String body) throws Exception {
    return call(caller, "POST", path, body, Map.of());
  }

  private static Response call(
      Caller caller, String method, String path, @Nullable String body, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request = request(method, path, body, headers);
    if (caller.key != null) {
      request.header("Authorization", "Bearer " + caller.key);
    }
    HttpResponse<InputStream> response = http.send(request.build(), BodyHandlers.ofInputStream());
    String text;
    try (InputStream in = response.body()) {
      // An event stream stays open: its first event is enough.
      text =
          response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")
              ? firstEvent(in)
              : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    return new Response(
        response.statusCode(),
        text,
        response.headers().firstValue("WWW-Authenticate").orElse(null),
        response.headers().firstValue("X-Chat-Id").orElse(null));
  }

  private static String firstEvent(InputStream in) throws IOException {
    StringBuilder text = new StringBuilder();
    int b;
    while ((b = in.read()) != -1 && text.indexOf("\n\n") < 0) {
      text.append((char) b);
    }
    return text.toString();
  }

  private static HttpRequest.Builder request(
      String method, String path, @Nullable String body, Map<String, String> headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    headers.forEach(request::header);
    return request;
  }
}
