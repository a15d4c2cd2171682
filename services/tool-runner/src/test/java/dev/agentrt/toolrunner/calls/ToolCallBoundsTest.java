package dev.agentrt.toolrunner.calls;

import static dev.agentrt.toolrunner.calls.ToolCallFixtures.pending;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.requested;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.subAgent;
import static dev.agentrt.toolrunner.calls.ToolCallFixtures.unclaimed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.testing.InMemoryMongo;
import dev.agentrt.toolrunner.mcp.McpServer;
import dev.agentrt.toolrunner.mcp.McpTestServers;
import dev.agentrt.toolrunner.tools.BuiltIns;
import dev.agentrt.toolrunner.tools.HttpProperties;
import dev.agentrt.toolrunner.tools.ToolSettings;
import dev.agentrt.toolrunner.tools.Toolbox;
import dev.agentrt.toolrunner.tools.WebSearchProperties;
import io.micrometer.observation.ObservationRegistry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import tools.jackson.databind.json.JsonMapper;

/**
 * The bounds on tool calls, on a real MongoDB-protocol server: a result's size, retries of
 * transient failures (against a real local HTTP server), and the calls one runner runs at once.
 */
class ToolCallBoundsTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final AgentCatalog AGENTS =
      AgentCatalog.read(
          new ByteArrayInputStream(
              """
              agents:
                - name: researcher
                  description: Researches.
                  systemPrompt: Research.
                  tools: [search_docs, http_get, big__*]
              """
                  .getBytes(StandardCharsets.UTF_8)),
          "test agents");

  /** Quick retries: what is counted is attempts, never time. */
  private static final ToolCallProperties.Retry QUICK =
      new ToolCallProperties.Retry(4, Duration.ofMillis(1), Duration.ofMillis(5));

  private static final ToolCallProperties PROPERTIES =
      new ToolCallProperties(Duration.ofSeconds(10), Duration.ofSeconds(10)).withRetry(QUICK);

  private static InMemoryMongo store;
  private static MongoTemplate mongo;

  private final RecordingPublisher published = new RecordingPublisher();
  private final List<ToolCallRunner> runners = new ArrayList<>();
  private HttpServer http;
  private String base;
  private final AtomicInteger flakyHits = new AtomicInteger();
  private final AtomicInteger downHits = new AtomicInteger();
  private final AtomicInteger missingHits = new AtomicInteger();

  @BeforeAll
  static void startMongo() {
    store = InMemoryMongo.start();
    mongo = store.template();
    new ToolCallIndexes(mongo).afterPropertiesSet();
  }

  @AfterAll
  static void stopMongo() {
    store.close();
  }

  @BeforeEach
  void startHttp() throws IOException {
    store.clear();
    http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    // 503 twice, then 200.
    http.createContext(
        "/flaky",
        e -> {
          int hit = flakyHits.incrementAndGet();
          respond(e, hit <= 2 ? 503 : 200, hit <= 2 ? "busy, try later" : "fine now");
        });
    http.createContext(
        "/down",
        e -> {
          downHits.incrementAndGet();
          respond(e, 503, "busy, try later");
        });
    http.createContext(
        "/missing",
        e -> {
          missingHits.incrementAndGet();
          respond(e, 404, "no such page");
        });
    http.start();
    base = "http://127.0.0.1:" + http.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    runners.forEach(ToolCallRunner::destroy);
    http.stop(0);
  }

  // --- the size of a result

  @Test
  void anMcpResultOfTwentyMebibytesIsStoredCutToTheCapAndTheCallSucceeds() {
    McpTestServers.assumeAvailable();
    McpServer big = new McpServer("big", McpTestServers.big(), PROPERTIES.settings());
    try {
      big.start();
      ToolCallRunner runner = runner(PROPERTIES, new Toolbox(List.of(big)));
      SubAgent subAgent = stored(subAgent());
      int twentyMebibytes = 20 * 1024 * 1024;
      ToolCall call =
          stored(pending(subAgent, "big__text_of_size", "{\"bytes\":" + twentyMebibytes + "}"));

      runner.onRequested(requested(call));
      ToolCall done = Runners.awaitAnswered(mongo, call, Duration.ofSeconds(60));

      assertThat(done.status()).isEqualTo(ToolCallStatus.success);
      // The server's text as {"text":"…"}, then cut: 11 bytes of JSON around the text.
      int whole = twentyMebibytes + "{\"text\":\"\"}".length();
      assertThat(done.result()).startsWith("{\"text\":\"xxxx");
      assertThat(done.result())
          .endsWith("x…[truncated: " + whole + " bytes, showing the first 262088]");
      assertThat(done.result().substring(0, 262088)).doesNotContain("…");
      assertThat(done.result().getBytes(StandardCharsets.UTF_8).length)
          .isLessThanOrEqualTo(256 * 1024)
          .isGreaterThan(256 * 1024 - 100);
      assertThat(theToolMessageOf(call).content()).isEqualTo(done.result());
    } finally {
      big.close();
    }
  }

  // --- retries

  @Test
  void aTransientFailureOfAnIdempotentToolIsTriedAgainUntilItSucceeds() {
    ToolCall call = httpGet("/flaky");

    runner(PROPERTIES, httpTools(PROPERTIES)).onRequested(requested(call));
    ToolCall done = Runners.awaitAnswered(mongo, call);

    assertThat(flakyHits).as("503, 503, then 200").hasValue(3);
    assertThat(done.status()).isEqualTo(ToolCallStatus.success);
    assertThat(JSON.readTree(done.result()).get("status").asInt()).isEqualTo(200);
    assertThat(JSON.readTree(done.result()).get("body").asString()).isEqualTo("fine now");
  }

  @Test
  void retriesEndAfterMaxAttemptsAndTheModelSeesTheError() {
    ToolCallProperties three =
        PROPERTIES.withRetry(
            new ToolCallProperties.Retry(3, Duration.ofMillis(1), Duration.ofMillis(5)));
    ToolCall call = httpGet("/down");

    runner(three, httpTools(three)).onRequested(requested(call));
    ToolCall done = Runners.awaitAnswered(mongo, call);

    assertThat(downHits).hasValue(3);
    assertThat(done.status()).isEqualTo(ToolCallStatus.failed);
    assertThat(JSON.readTree(done.error()))
        .isEqualTo(
            JSON.readTree(
                "{\"error_type\":\"tool_error\",\"message\":\"GET "
                    + base
                    + "/down answered 503: busy, try later\"}"));
    assertThat(theToolMessageOf(call).content()).isEqualTo(done.error());
  }

  @Test
  void aToolThatIsNotIdempotentIsNotTriedAgain() {
    ToolCallProperties careful =
        new ToolCallProperties(
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                Map.of("http_get", new ToolSettings.Override(null, false, null)))
            .withRetry(QUICK);
    ToolCall call = httpGet("/flaky");

    runner(careful, httpTools(careful)).onRequested(requested(call));
    ToolCall done = Runners.awaitAnswered(mongo, call);

    assertThat(flakyHits).hasValue(1);
    assertThat(done.status()).isEqualTo(ToolCallStatus.failed);
    assertThat(done.error()).contains("answered 503");
  }

  @Test
  void aFailureThatIsNotTransientIsNotTriedAgain() {
    ToolCall missing = httpGet("/missing");
    ToolCall refused = httpGet("http://example.org/");
    ToolCallRunner runner = runner(PROPERTIES, httpTools(PROPERTIES));

    runner.onRequested(requested(missing));
    runner.onRequested(requested(refused));

    assertThat(JSON.readTree(Runners.awaitAnswered(mongo, missing).result()).get("status").asInt())
        .as("a 4xx is the page's answer, given to the model as it is")
        .isEqualTo(404);
    assertThat(missingHits).hasValue(1);
    assertThat(Runners.awaitAnswered(mongo, refused).error()).contains("not_allowed");
  }

  @Test
  void aTimeoutIsTriedAgain() {
    ToolCallProperties quick =
        new ToolCallProperties(Duration.ofSeconds(1), Duration.ofSeconds(10)).withRetry(QUICK);
    ScriptedTool tool = new ScriptedTool();
    CountDownLatch never = new CountDownLatch(1);
    // The first attempt hangs past the timeout; the second answers.
    tool.whileRunning =
        () -> {
          if (tool.executions.get() == 1) {
            waitFor(never);
          }
        };
    SubAgent subAgent = stored(subAgent());
    ToolCall call = stored(pending(subAgent, "search_docs", "{\"query\":\"q\"}"));

    runner(quick, Toolbox.of(List.of(tool), quick.settings())).onRequested(requested(call));
    ToolCall done = Runners.awaitAnswered(mongo, call);

    assertThat(tool.executions).hasValue(2);
    assertThat(done.status()).isEqualTo(ToolCallStatus.success);
  }

  // --- calls in flight

  @Test
  void withEveryPermitTakenACallStaysPendingUntilOneFinishesWhosePermitRunsIt() throws Exception {
    ToolCallProperties two = PROPERTIES.withMaxConcurrentCalls(2);
    ScriptedTool tool = new ScriptedTool();
    CountDownLatch twoRunning = new CountDownLatch(2);
    Semaphore finish = new Semaphore(0);
    tool.whileRunning =
        () -> {
          twoRunning.countDown();
          finish.acquireUninterruptibly();
        };
    ToolCallRunner runner = runner(two, Toolbox.of(List.of(tool), two.settings()));
    ToolCallSweeper sweeper = Runners.sweeper(runner);
    SubAgent subAgent = stored(subAgent());
    // Old enough for the sweeper to claim, had it a permit.
    List<ToolCall> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(stored(unclaimed(subAgent, "search_docs", "{\"query\":\"q" + i + "\"}")));
    }

    assertThat(runner.onRequested(requested(calls.get(0)))).isTrue();
    assertThat(runner.onRequested(requested(calls.get(1)))).isTrue();
    assertThat(twoRunning.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(runner.onRequested(requested(calls.get(2))))
        .as("no permit: not claimed, and the listener is not held")
        .isFalse();
    assertThat(sweeper.takeUp()).as("nor by the sweeper").isZero();
    assertThat(reload(calls.get(2)).status()).isEqualTo(ToolCallStatus.pending);
    assertThat(reload(calls.get(2)).lease()).isNull();
    assertThat(tool.executions).hasValue(2);

    finish.release(1);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(tool.executions)
                    .as("the permit given back runs the call turned away, no sweep between")
                    .hasValue(3));
    assertThat(calls.subList(0, 2).stream().map(this::reload).filter(ToolCalls::finished))
        .hasSize(1);
    finish.release(2);

    for (ToolCall call : calls) {
      assertThat(Runners.awaitAnswered(mongo, call).status()).isEqualTo(ToolCallStatus.success);
    }
    assertThat(tool.executions).hasValue(3);
  }

  /**
   * A permit given back takes up the calls turned away for want of one, and only those: a call
   * turned away whose claim finds it taken meanwhile (by another runner) is skipped, and a call
   * turned away while the permit's holder was looking, for want of that very permit, still runs on
   * it, not at a sweep. The look is held on latches between the skipped claim and what follows.
   */
  @Test
  void aCallTurnedAwayWhileAFreedPermitTakesUpOthersRunsOnThatPermit() throws Exception {
    ToolCallProperties one = PROPERTIES.withMaxConcurrentCalls(1);
    SubAgent subAgent = stored(subAgent());
    ToolCall first = stored(pending(subAgent, "search_docs", "{\"query\":\"first\"}"));
    // Stored before the others: a take-up of any pending call would find it first.
    ToolCall notTurnedAway = stored(pending(subAgent, "search_docs", "{\"query\":\"own\"}"));
    ToolCall ranElsewhere = stored(pending(subAgent, "search_docs", "{\"query\":\"else\"}"));
    ToolCall late = stored(pending(subAgent, "search_docs", "{\"query\":\"late\"}"));
    CountDownLatch skipped = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    BulkWrites writes = new BulkWrites(mongo);
    ToolCalls calls =
        new ToolCalls(
            mongo,
            writes,
            one,
            ToolCallConfiguration.toolCallLeases(mongo, writes, Runners.LEASE),
            Runners.later(writes)) {
          @Override
          Optional<ToolCall> claim(String toolCallId) {
            Optional<ToolCall> claimed = super.claim(toolCallId);
            if (toolCallId.equals(ranElsewhere.id())) {
              skipped.countDown();
              waitFor(goOn);
            }
            return claimed;
          }
        };
    ScriptedTool tool = new ScriptedTool();
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch finishFirst = new CountDownLatch(1);
    tool.whileRunning =
        () -> {
          if (tool.executions.get() == 1) {
            firstRunning.countDown();
            waitFor(finishFirst);
          }
        };
    ToolCallRunner runner =
        Runners.runner(
            calls,
            mongo,
            published,
            AGENTS,
            one,
            Toolbox.of(List.of(tool), one.settings()),
            ObservationRegistry.NOOP,
            false);
    runners.add(runner);
    assertThat(runner.onRequested(requested(first))).isTrue();
    assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(runner.onRequested(requested(ranElsewhere))).as("no permit").isFalse();
    mongo.remove(reload(ranElsewhere)); // taken by another runner meanwhile

    finishFirst.countDown(); // its permit, given back, takes up the call turned away
    assertThat(skipped.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(runner.onRequested(requested(late)))
        .as("the permit is held by the take-up")
        .isFalse();
    goOn.countDown();

    assertThat(Runners.awaitAnswered(mongo, late).status())
        .as("run on the permit given back, no sweep")
        .isEqualTo(ToolCallStatus.success);
    assertThat(tool.executions).hasValue(2);
    assertThat(reload(notTurnedAway).status())
        .as("a pending call whose own event is still to come is left to it")
        .isEqualTo(ToolCallStatus.pending);
  }

  @Test
  void aPermitIsGivenBackWhateverWayTheCallEnds() {
    ToolCallProperties one = PROPERTIES.withMaxConcurrentCalls(1);
    ScriptedTool tool = new ScriptedTool();
    ToolCallRunner runner = runner(one, Toolbox.of(List.of(tool), one.settings()));
    SubAgent subAgent = stored(subAgent());
    ToolCall badArguments = stored(pending(subAgent, "search_docs", "{\"query\":42}"));
    ToolCall notListed = stored(pending(subAgent, "read_doc", "{\"path\":\"a.md\"}"));
    ToolCall fails = stored(pending(subAgent, "search_docs", "{\"query\":\"boom\"}"));
    ToolCall fine = stored(pending(subAgent, "search_docs", "{\"query\":\"fine\"}"));
    tool.whileRunning =
        () -> {
          if (tool.executions.get() == 1) {
            throw new IllegalStateException("the tool broke");
          }
        };

    for (ToolCall call : List.of(badArguments, notListed, fails, fine)) {
      assertThat(runner.onRequested(requested(call))).isTrue();
      Runners.awaitAnswered(mongo, call);
      await().atMost(Duration.ofSeconds(10)).until(() -> inFlight(runner) == 0);
    }
    assertThat(reload(fails).error()).contains("the tool broke");
    assertThat(reload(fine).status()).isEqualTo(ToolCallStatus.success);
  }

  // --- helpers

  private ToolCallRunner runner(ToolCallProperties properties, Toolbox toolbox) {
    ToolCallRunner made = Runners.runner(mongo, published, AGENTS, properties, toolbox);
    runners.add(made);
    return made;
  }

  /** The built-in tools with http_get allowed to fetch from this test's server. */
  private Toolbox httpTools(ToolCallProperties properties) {
    return Toolbox.of(
        BuiltIns.configured(
            Path.of("docs"),
            Path.of("target/notes"),
            new HttpProperties(
                List.of("127.0.0.1"),
                10_000,
                3,
                List.of("127.0.0.1"),
                List.of(http.getAddress().getPort())),
            new WebSearchProperties(null, URI.create("http://127.0.0.1/"), 5)),
        properties.settings());
  }

  private ToolCall httpGet(String pathOrUrl) {
    String url = pathOrUrl.startsWith("/") ? base + pathOrUrl : pathOrUrl;
    return stored(
        pending(
            stored(subAgent()), "http_get", JSON.createObjectNode().put("url", url).toString()));
  }

  private static int inFlight(ToolCallRunner runner) {
    return runner.callsInFlight();
  }

  private static <T> T stored(T document) {
    return mongo.insert(document);
  }

  private ToolCall reload(ToolCall call) {
    return mongo.findById(call.id(), ToolCall.class);
  }

  private static SubAgentMessage theToolMessageOf(ToolCall call) {
    List<SubAgentMessage> messages =
        mongo.find(
            Query.query(Criteria.where("subAgentId").is(call.subAgentId())), SubAgentMessage.class);
    assertThat(messages).hasSize(1);
    return messages.getFirst();
  }

  private static void waitFor(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    }
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
