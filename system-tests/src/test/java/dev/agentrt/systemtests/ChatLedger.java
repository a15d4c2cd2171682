package dev.agentrt.systemtests;

import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Sorts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/** A chat's run-event ledger, read straight from MongoDB as the tests check it. */
final class ChatLedger {

  private ChatLedger() {}

  /** The chat's events in order. */
  static List<Document> events(MongoClient mongo, String chatId) {
    return mongo
        .getDatabase("agentrt")
        .getCollection("run_events")
        .find(Filters.eq("chatId", chatId))
        .sort(Sorts.ascending("seq"))
        .into(new ArrayList<>());
  }

  /** Until the final answer is in the chat: the run and everything it writes are done. */
  static void awaitRunFinished(MongoClient mongo, String chatId, Duration timeout) {
    await()
        .atMost(timeout)
        .until(
            () ->
                events(mongo, chatId).stream()
                    .anyMatch(
                        e ->
                            e.getString("type").equals("message")
                                && e.get("data", Document.class).getString("taskId") != null));
  }
}
