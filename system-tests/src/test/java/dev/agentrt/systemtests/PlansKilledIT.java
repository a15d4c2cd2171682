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
 * Plans survive the service that moves them on: the finalizer killed with SIGKILL once some plan's
 * first research node has ended and others still run, then started again. Every plan finishes, no
 * node's task exists twice, and each plan gets one answer. The offline model takes 1 s a call
 * ({@code AGENTRT_OFFLINE_MODEL_LATENCY}) so that nodes are running when the finalizer dies.
 */
class PlansKilledIT {

  private static final int PLANS = 3;
  private static final int NODES = 4; // three researchers and the writer

  @TempDir static Path dataDir;

  private static OfflineModelStack stack;
  private static RunningServices services;

  @BeforeAll
  static void startStack() throws IOException {
    stack = OfflineModelStack.start("plans-killed", dataDir, Duration.ofSeconds(1), Map.of());
    services = stack.services;
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void everyPlanFinishesWithEachNodesTaskOnceAndOneAnswerAfterTheFinalizerIsKilled() {
    ChatApi api = new ChatApi(services.baseUrl("orchestrator"));
    for (int i = 0; i < PLANS; i++) {
      String chatId = api.createChat();
      assertThat(api.postMessage(chatId, "Write a report on Kafka, MongoDB and security").status())
          .isEqualTo(202);
    }
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> nodesWith("success") >= 1);
    long endedAtTheKill = nodesWith("success");
    services.kill("finalizer");
    services.startAgain("finalizer");

    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> plansAnswered() == PLANS);
    System.out.printf(
        "PLANS KILLED: %d nodes ended when the finalizer died; plans %s%n",
        endedAtTheKill, planStatuses());
    assertThat(planStatuses()).isEqualTo(Map.of("success", (long) PLANS));
    List<Document> tasks = stack.db().getCollection("tasks").find().into(new ArrayList<>());
    assertThat(tasks).as("one task per node").hasSize(PLANS * NODES);
    assertThat(tasks).allSatisfy(t -> assertThat(t.getString("status")).isEqualTo("success"));
    Map<String, Long> answersPerChat =
        stack
            .db()
            .getCollection("chat_messages")
            .find(Filters.eq("role", "assistant"))
            .into(new ArrayList<>())
            .stream()
            .collect(Collectors.groupingBy(m -> m.getString("chatId"), Collectors.counting()));
    assertThat(answersPerChat).hasSize(PLANS).allSatisfy((chat, n) -> assertThat(n).isOne());
    assertThat(services.allAlive()).isTrue();
  }

  /** Nodes of all plans with this status. */
  private static long nodesWith(String status) {
    return stack.db().getCollection("plans").find().into(new ArrayList<>()).stream()
        .flatMap(p -> p.getList("nodes", Document.class).stream())
        .filter(n -> status.equals(n.getString("status")))
        .count();
  }

  private static long plansAnswered() {
    return stack.db().getCollection("plans").countDocuments(Filters.exists("answerId"));
  }

  private static Map<String, Long> planStatuses() {
    return stack.db().getCollection("plans").find().into(new ArrayList<>()).stream()
        .collect(Collectors.groupingBy(p -> p.getString("status"), Collectors.counting()));
  }
}
