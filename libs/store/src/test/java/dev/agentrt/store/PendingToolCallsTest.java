package dev.agentrt.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.time.Instant;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

/** The calls of a run that ended before they started, on a real MongoDB-protocol server. */
class PendingToolCallsTest {

  private static final Instant NOW = Instant.parse("2026-11-24T10:00:00Z");

  private static MongoServer server;
  private static MongoClient client;
  private static MongoTemplate mongo;
  private static RunLedger ledger;

  @BeforeAll
  static void start() {
    server = new MongoServer(new MemoryBackend());
    client = MongoClients.create("mongodb://127.0.0.1:" + server.bind().getPort());
    mongo = new MongoTemplate(client, "agentrt");
    new StoreIndexes(mongo).afterPropertiesSet();
    ledger = new RunLedger(mongo);
  }

  @AfterAll
  static void stop() {
    client.close();
    server.shutdownNow();
  }

  @Test
  void aFailedRunRejectsWhatAwaitsApprovalAsADecisionRecordedOnce() {
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));
    String subAgent = Ids.fresh();
    ToolCall awaiting = call(chat, subAgent, ToolCallStatus.awaiting_approval);
    ToolCall pending = call(chat, subAgent, ToolCallStatus.pending);
    ToolCall approved = call(chat, subAgent, ToolCallStatus.running);

    long failed =
        PendingToolCalls.fail(mongo, ledger, subAgent, "step_limit_exceeded", NOW)
            + PendingToolCalls.fail(mongo, ledger, subAgent, "step_limit_exceeded", NOW);

    assertThat(failed).as("each call once").isEqualTo(2);
    Document rejected = stored(awaiting);
    assertThat(rejected.getString("status")).isEqualTo("failed");
    assertThat(rejected.getString("error")).contains("\"error_type\":\"rejected\"");
    assertThat(rejected.get(ToolCall.DECISION, Document.class))
        .containsEntry("approved", false)
        .containsEntry("by", ApprovalDecision.RUN_FAILED)
        .containsEntry("reason", "step_limit_exceeded");
    assertThat(stored(pending).getString("error")).contains("step_limit_exceeded");
    assertThat(stored(approved).getString("status")).as("started: left alone").isEqualTo("running");
    List<RunEvent> events = ledger.after(chat.id(), 0, 10);
    assertThat(events).extracting(RunEvent::type).containsExactly(RunEvent.APPROVAL_DECIDED);
    assertThat(events.getFirst().data())
        .containsEntry("toolCallId", awaiting.id())
        .containsEntry("approved", false)
        .containsEntry("by", "run_failed")
        .containsEntry("reason", "step_limit_exceeded");
  }

  private static ToolCall call(Chat chat, String subAgentId, ToolCallStatus status) {
    return mongo.insert(
        new ToolCall(
            Ids.fresh(),
            subAgentId,
            "task-1",
            chat.id(),
            "scribe",
            "call_" + status,
            "write_note",
            "{}",
            status,
            null,
            null,
            null,
            null,
            NOW,
            NOW,
            List.of()));
  }

  private static Document stored(ToolCall call) {
    return mongo
        .getCollection(Collections.SUB_AGENT_TOOL_CALLS)
        .find(new Document("_id", call.id()))
        .first();
  }
}
