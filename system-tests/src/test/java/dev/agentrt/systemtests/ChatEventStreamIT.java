package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chat event stream against the real services: a client that drops mid-run and reconnects with
 * Last-Event-ID gets exactly the ledger, and a second orchestrator streams events written by the
 * other services just the same.
 */
class ChatEventStreamIT {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);

  private final EmbeddedStack stack = EmbeddedStack.get();
  private final String orchestrator = stack.services.baseUrl("orchestrator");
  private final ChatApi api = new ChatApi(orchestrator);
  private static MongoClient mongo;

  @BeforeAll
  static void connect() {
    mongo = MongoClients.create(EmbeddedStack.get().mongo.uri());
  }

  @AfterAll
  static void disconnect() {
    mongo.close();
  }

  @Test
  void aClientThatReconnectsWithLastEventIdGetsExactlyTheLedger() {
    String chatId = api.createChat();
    List<EventStream.Event> received = new ArrayList<>();

    try (EventStream first = EventStream.open(orchestrator, chatId, null)) {
      assertThat(first.status()).isEqualTo(200);
      api.postMessage(chatId, "Research Kafka and MongoDB");
      await()
          .atMost(RUN_TIMEOUT)
          .untilAsserted(
              () ->
                  assertThat(first.events())
                      .as(() -> "stream: " + first.describe() + "; ledger: " + summary(chatId))
                      .extracting(EventStream.Event::type)
                      .contains("tool_call_start"));
      // The client drops as it handles the first tool call's start: whatever came after it, it
      // never saw. (A warm stack finishes the run within the await's poll, so everything else
      // may have come already; the reconnect must still start from where the client was.)
      List<EventStream.Event> got = first.events();
      received.addAll(
          got.subList(
              0,
              got.stream().map(EventStream.Event::type).toList().indexOf("tool_call_start") + 1));
    }
    awaitRunFinished(chatId);

    try (EventStream second = EventStream.open(orchestrator, chatId, received.getLast().id())) {
      assertThat(second.status()).as(second::describe).isEqualTo(200);
      long last = ledger(chatId).getLast().getLong("seq");
      await()
          .atMost(RUN_TIMEOUT)
          .untilAsserted(
              () ->
                  assertThat(second.lastId())
                      .as(() -> "stream: " + second.describe() + "; ledger: " + summary(chatId))
                      .isEqualTo(last));
      received.addAll(second.events());
    }

    List<Document> ledger = ledger(chatId);
    assertThat(received)
        .extracting(EventStream.Event::id)
        .containsExactlyElementsOf(ledger.stream().map(d -> d.getLong("seq")).toList());
    assertThat(received)
        .extracting(EventStream.Event::type)
        .containsExactlyElementsOf(ledger.stream().map(d -> d.getString("type")).toList())
        .contains(
            "message",
            "handoff",
            "run_start",
            "step_start",
            "step_end",
            "tool_call_start",
            "tool_call_result",
            "run_end");
    EventStream.Event toolResult =
        received.stream().filter(e -> e.type().equals("tool_call_result")).findFirst().get();
    assertThat(toolResult.data().path("chatId").asString()).isEqualTo(chatId);
    assertThat(toolResult.data().path("data").path("status").asString()).isEqualTo("succeeded");
    assertThat(toolResult.data().path("data").path("tool").asString()).isEqualTo("search_docs");
    EventStream.Event stepEnd =
        received.stream().filter(e -> e.type().equals("step_end")).findFirst().get();
    assertThat(stepEnd.data().path("agent").asString()).isEqualTo("researcher");
    assertThat(stepEnd.data().path("data").path("toolCalls").size()).isEqualTo(2);
    assertThat(received.getLast().type()).isEqualTo("message");
    assertThat(received.getLast().data().path("data").path("content").asString())
        .contains("Sources");
  }

  @Test
  void twoOrchestratorsBothStreamAChatWhoseEventsComeFromElsewhere() {
    try (RunningServices copy = stack.startCopies("second", List.of("orchestrator"))) {
      String chatId = api.createChat();
      try (EventStream here = EventStream.open(orchestrator, chatId, null);
          EventStream there = EventStream.open(copy.baseUrl("orchestrator"), chatId, null)) {
        api.postMessage(chatId, "Research Kafka");
        awaitRunFinished(chatId);
        long last = ledger(chatId).getLast().getLong("seq");
        await()
            .atMost(RUN_TIMEOUT)
            .untilAsserted(
                () ->
                    assertThat(List.of(here.lastId(), there.lastId()))
                        .as(
                            () ->
                                "here: "
                                    + here.describe()
                                    + "; there: "
                                    + there.describe()
                                    + "; ledger: "
                                    + summary(chatId))
                        .containsOnly(last));

        assertThat(there.events()).isEqualTo(here.events());
        assertThat(there.events())
            .extracting(EventStream.Event::type)
            .contains("step_end", "tool_call_result", "run_end");
      }
    }
  }

  @Test
  void anUnknownChatOrABadPositionIsRefusedWithAReason() {
    assertThat(api.get("/api/chats/no-such-chat/events").status()).isEqualTo(404);
    String chatId = api.createChat();
    ChatApi.Response bad = api.get("/api/chats/" + chatId + "/events?after=soon");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body().path("detail").asString()).contains("after must be a position");
  }

  private static void awaitRunFinished(String chatId) {
    ChatLedger.awaitRunFinished(mongo, chatId, RUN_TIMEOUT);
  }

  private static List<Document> ledger(String chatId) {
    return ChatLedger.events(mongo, chatId);
  }

  /** The chat's ledger as positions and types, for a failure's message. */
  private static String summary(String chatId) {
    return ledger(chatId).stream()
        .map(d -> d.getLong("seq") + ":" + d.getString("type"))
        .toList()
        .toString();
  }
}
