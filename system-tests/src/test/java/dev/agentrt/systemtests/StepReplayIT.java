package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The step ledger and step replay against the real services on the offline model: a run's events
 * name their steps and tools and its configuration, and every model turn of it, replayed, gives the
 * same answer and stores nothing.
 */
class StepReplayIT {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);

  private final EmbeddedStack stack = EmbeddedStack.get();
  private final ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));
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
  void theLedgerNamesEachStepItsToolCallsAndTheRunsConfiguration() {
    String chatId = api.createChat();
    api.postMessage(chatId, "Research Kafka and MongoDB");
    ChatLedger.awaitRunFinished(mongo, chatId, RUN_TIMEOUT);

    List<Document> ledger = ledger(chatId);
    Document runStart = first(ledger, "run_start");
    assertThat(runStart.getString("configVersion")).matches("[0-9a-f]{16}");
    Document firstStepEnd = first(ledger, "step_end");
    String stepId = firstStepEnd.getString("stepId");
    assertThat(stepId).isNotBlank();
    assertThat(firstStepEnd.getInteger("turn")).isEqualTo(1);
    assertThat(first(ledger, "step_start").getString("stepId")).isEqualTo(stepId);
    // The turn's two calls run side by side: the ledger has each call's start before its result,
    // not one call's start before the other's.
    int start = position(ledger, "tool_call_start", "Kafka");
    Document toolStart = ledger.get(start).get("data", Document.class);
    assertThat(toolStart.getString("stepId")).as("the turn that asked for it").isEqualTo(stepId);
    assertThat(toolStart.getString("toolName"))
        .isEqualTo(toolStart.getString("tool"))
        .isEqualTo("search_docs");
    assertThat(toolStart.getString("toolInput")).isEqualTo(toolStart.getString("arguments"));
    int result = position(ledger, "tool_call_result", toolStart.getString("toolCallId"));
    assertThat(result).as("the call's result after its start").isGreaterThan(start);
    assertThat(ledger.get(result).get("data", Document.class).getString("toolName"))
        .isEqualTo("search_docs");
  }

  @Test
  void everyTurnReplayedOnTheOfflineModelGivesTheSameAnswerAndChangesNothingStored() {
    String chatId = api.createChat();
    api.postMessage(chatId, "Research Kafka and MongoDB");
    ChatLedger.awaitRunFinished(mongo, chatId, RUN_TIMEOUT);
    JsonNode task = api.get("/api/chats/" + chatId + "/tasks").body().get(0);
    String taskId = task.path("id").asString();
    String subAgentId = task.path("subAgentId").asString();
    int turns = 0;
    for (JsonNode message : api.get("/api/tasks/" + taskId).body().path("messages")) {
      turns += message.path("role").asString().equals("assistant") ? 1 : 0;
    }
    assertThat(turns).as("turns with tool calls, then the answer").isGreaterThan(2);
    Map<String, Long> before = counts(chatId, subAgentId);

    for (int turn = 1; turn <= turns; turn++) {
      ChatApi.Response replayed =
          api.post("/api/tasks/" + taskId + "/turns/" + turn + "/replay", "{}");

      assertThat(replayed.status()).as("turn %d: %s", turn, replayed.body()).isEqualTo(200);
      JsonNode body = replayed.body();
      assertThat(body.path("turn").asInt()).isEqualTo(turn);
      assertThat(body.path("model").asString()).isEqualTo("offline");
      assertThat(body.path("replayed")).as("turn %d", turn).isEqualTo(body.path("recorded"));
      assertThat(body.path("sameAnswer").asBoolean()).isTrue();
      assertThat(body.path("inputChanges").isEmpty()).as("exactly the turn's input").isTrue();
    }
    JsonNode last =
        api.post("/api/tasks/" + taskId + "/turns/" + turns + "/replay", "{\"model\":\"offline\"}")
            .body();
    assertThat(last.path("replayed").path("text").asString()).contains("Sources");

    assertThat(counts(chatId, subAgentId)).as("nothing stored").isEqualTo(before);
    assertThat(
            api.post("/api/tasks/" + taskId + "/turns/" + (turns + 1) + "/replay", "{}").status())
        .isEqualTo(409);
    ChatApi.Response unknownModel =
        api.post("/api/tasks/" + taskId + "/turns/1/replay", "{\"model\":\"gpt-9\"}");
    assertThat(unknownModel.status()).isEqualTo(400);
    assertThat(unknownModel.body().path("detail").asString()).contains("unknown model 'gpt-9'");
    assertThat(api.post("/api/tasks/no-such-task/turns/1/replay", "{}").status()).isEqualTo(404);
  }

  /** The documents of this chat's run in every collection a replay could write to. */
  private static Map<String, Long> counts(String chatId, String subAgentId) {
    MongoDatabase db = mongo.getDatabase("agentrt");
    Map<String, Bson> of = new LinkedHashMap<>();
    of.put("sub_agent_messages", Filters.eq("subAgentId", subAgentId));
    of.put("sub_agent_tool_calls", Filters.eq("subAgentId", subAgentId));
    of.put("run_events", Filters.eq("chatId", chatId));
    of.put("chat_messages", Filters.eq("chatId", chatId));
    of.put("tasks", Filters.eq("chatId", chatId));
    Map<String, Long> counts = new LinkedHashMap<>();
    of.forEach(
        (collection, filter) ->
            counts.put(collection, db.getCollection(collection).countDocuments(filter)));
    return counts;
  }

  private static Document first(List<Document> ledger, String type) {
    return ledger.stream()
        .filter(e -> e.getString("type").equals(type))
        .findFirst()
        .map(e -> e.get("data", Document.class))
        .orElseThrow(() -> new AssertionError("no " + type + " in the ledger"));
  }

  /** Where in the ledger the first event of this type is whose data mentions {@code text}. */
  private static int position(List<Document> ledger, String type, String text) {
    for (int i = 0; i < ledger.size(); i++) {
      Document event = ledger.get(i);
      if (event.getString("type").equals(type)
          && event.get("data", Document.class).toJson().contains(text)) {
        return i;
      }
    }
    throw new AssertionError("no " + type + " with " + text + " in the ledger");
  }

  private static List<Document> ledger(String chatId) {
    return ChatLedger.events(mongo, chatId);
  }
}
