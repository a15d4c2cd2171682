package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.model.Filters;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delegation survives crashes: agent-init killed with SIGKILL as the first children are stored,
 * agent-loop while children hold model turns, then the finalizer while children's outcomes are
 * being delivered. Every tree finishes, no child is started twice, and no caller gets a result
 * twice. The offline model takes 1 s a call ({@code AGENTRT_OFFLINE_MODEL_LATENCY}) so that turns
 * are in flight when the services die.
 */
class DelegationKilledIT {

  private static final int RUNS = 6;

  @TempDir static Path dataDir;

  private static OfflineModelStack stack;
  private static RunningServices services;

  @BeforeAll
  static void startStack() throws IOException {
    stack = OfflineModelStack.start("delegation-killed", dataDir, Duration.ofSeconds(1), Map.of());
    services = stack.services;
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void everyTreeFinishesWithNoChildStartedTwiceAndNoResultDeliveredTwice() {
    ChatApi api = new ChatApi(services.baseUrl("orchestrator"));
    for (int i = 0; i < RUNS; i++) {
      String chatId = api.createChat();
      assertThat(api.postMessage(chatId, "Compare Kafka and MongoDB").status()).isEqualTo(202);
    }
    // agent-init dies as the first children are stored, before it has started them all.
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> !tasks(Filters.exists("delegation")).isEmpty());
    services.kill("agent-init");
    services.startAgain("agent-init");

    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> childTurnsHeld() >= RUNS / 2);
    long heldAtTheKill = childTurnsHeld();
    services.kill("agent-loop");
    services.startAgain("agent-loop");

    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> childrenWith("success") >= 1);
    services.kill("finalizer");
    services.startAgain("finalizer");

    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> tasksEnded() == 3L * RUNS);
    System.out.printf(
        "DELEGATION KILLED (agent-init, agent-loop, finalizer): %d child turns held when"
            + " agent-loop died; tasks %s%n",
        heldAtTheKill, statuses());
    assertThat(statuses()).isEqualTo(Map.of("success", 3L * RUNS));
    assertThat(tasks(Filters.exists("delegation"))).as("two children per tree").hasSize(2 * RUNS);

    for (Document root : tasks(Filters.exists("delegation", false))) {
      List<Document> replies =
          stack
              .db()
              .getCollection("sub_agent_messages")
              .find(
                  Filters.and(
                      Filters.eq("subAgentId", root.getString("subAgentId")),
                      Filters.eq("role", "tool")))
              .into(new ArrayList<>());
      assertThat(replies).as("one result per call").hasSize(2);
      assertThat(replies.stream().map(r -> r.getString("toolCallId")).distinct()).hasSize(2);
    }
    Map<String, Long> resultsPerCall =
        stack
            .db()
            .getCollection("sub_agent_messages")
            .find(Filters.eq("role", "tool"))
            .into(new ArrayList<>())
            .stream()
            .collect(
                Collectors.groupingBy(
                    m -> m.getString("subAgentId") + "/" + m.getString("toolCallId"),
                    Collectors.counting()));
    assertThat(resultsPerCall)
        .as("one result per tool call in every conversation, the children's too")
        .hasSizeGreaterThan(2 * RUNS)
        .allSatisfy((call, n) -> assertThat(n).isOne());
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> answers().size() == RUNS);
    Map<String, Long> answersPerTask =
        answers().stream()
            .collect(Collectors.groupingBy(m -> m.getString("taskId"), Collectors.counting()));
    assertThat(answersPerTask).hasSize(RUNS).allSatisfy((task, n) -> assertThat(n).isOne());
    assertThat(services.allAlive()).isTrue();
  }

  /** Researchers (children) holding a model turn. */
  private static long childTurnsHeld() {
    return stack
        .db()
        .getCollection("sub_agents")
        .countDocuments(
            Filters.and(Filters.eq("agent", "researcher"), Filters.exists("turn.holder")));
  }

  private static long childrenWith(String status) {
    return stack
        .db()
        .getCollection("tasks")
        .countDocuments(Filters.and(Filters.exists("delegation"), Filters.eq("status", status)));
  }

  private static long tasksEnded() {
    return stack
        .db()
        .getCollection("tasks")
        .countDocuments(Filters.in("status", "success", "failed", "cancelled"));
  }

  private static List<Document> tasks(org.bson.conversions.Bson filter) {
    return stack.db().getCollection("tasks").find(filter).into(new ArrayList<>());
  }

  private static Map<String, Long> statuses() {
    return stack.db().getCollection("tasks").find().into(new ArrayList<>()).stream()
        .collect(Collectors.groupingBy(t -> t.getString("status"), Collectors.counting()));
  }

  /** The finalizer's answers in the chats: assistant messages linked to a task. */
  private static List<Document> answers() {
    return stack
        .db()
        .getCollection("chat_messages")
        .find(Filters.and(Filters.eq("role", "assistant"), Filters.exists("taskId")))
        .into(new ArrayList<>());
  }
}
