package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The heartbeat, with the settings a user has: agent-loop killed with SIGKILL while many runs hold
 * a model call. Their turns' leases (30 s, renewed every 5 s while the worker lives) stop being
 * renewed, and the restarted agent-loop takes each turn up once its lease passed: every run ends
 * {@code success}, none as {@code timeout}, each answered once. The model is the offline model with
 * every call taking 2 s ({@code AGENTRT_OFFLINE_MODEL_LATENCY}), nothing else is set.
 */
class AgentLoopKilledIT {

  private static final int RUNS = 20;

  /** What the issue asks: every run done within a minute of the crash. */
  private static final Duration AFTER_THE_KILL = Duration.ofSeconds(60);

  @TempDir static Path dataDir;

  private static OfflineModelStack stack;

  @BeforeAll
  static void startStack() {
    stack = OfflineModelStack.start("agent-loop-killed", dataDir, Duration.ofSeconds(2));
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void everyRunWhoseTurnWasHeldByTheKilledAgentLoopEndsOnceAndInTime() {
    stack.startRuns(RUNS, "Research Kafka topics");
    // Kill once most runs hold a model turn (2 s each): their workers die mid-call.
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> stack.heldTurns() >= RUNS / 2);

    stack.services.kill("agent-loop");
    long heldAtTheKill = stack.heldTurns();
    long killedAt = System.nanoTime();
    stack.services.startAgain("agent-loop");

    await()
        .atMost(AFTER_THE_KILL)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> stack.tasksEnded() == RUNS);
    long seconds = Duration.ofNanos(System.nanoTime() - killedAt).toSeconds();
    System.out.printf(
        "AGENT-LOOP KILLED: %d turns held at the kill, %d runs ended %s, %d s after the kill%n",
        heldAtTheKill, RUNS, stack.statuses(), seconds);
    assertThat(stack.statuses()).as("how the runs ended").isEqualTo(Map.of("success", (long) RUNS));

    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> stack.answers().size() == RUNS);
    assertThat(stack.answersPerTask()).hasSize(RUNS).allSatisfy((t, n) -> assertThat(n).isOne());
    assertThat(stack.services.allAlive()).isTrue();
  }
}
