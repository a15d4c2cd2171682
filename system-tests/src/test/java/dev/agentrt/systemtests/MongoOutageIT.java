package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.events.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long MongoDB outage with the settings a user has: the server stopped for 60 s while 50 runs are
 * under way (each model call takes 1 s, {@code AGENTRT_OFFLINE_MODEL_LATENCY}), then started again
 * on the same data. Every service keeps running through it: work whose writes failed is taken up
 * again once its lease passed, and a record whose handling outlasted the listener's retries is
 * dead-lettered and its work found again by the sweeps over MongoDB (the line printed says how many
 * there were). Every run ends {@code success}, each answered once with one result per tool call,
 * and nobody replays a dead letter.
 */
class MongoOutageIT {

  private static final int RUNS = 50;

  /** What the issue asks: a stop of a minute, far past the listeners' 15 s of retries. */
  private static final Duration OUTAGE = Duration.ofSeconds(60);

  /** Leases (30 s) and sweeps (5 s) take up what was held, on a machine shared with others. */
  private static final Duration AFTER_THE_OUTAGE = Duration.ofMinutes(4);

  @TempDir static Path dataDir;

  private static OfflineModelStack stack;

  @BeforeAll
  static void startStack() {
    stack = OfflineModelStack.start("mongo-outage", dataDir, Duration.ofSeconds(1));
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void everyRunUnderWayWhenMongoDbStoppedForAMinuteEndsOnceAfterItIsBack()
      throws InterruptedException {
    stack.startRuns(RUNS, "Research Kafka topics");
    // Stop the server in the middle: runs hold model turns, some are further on, some behind.
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> stack.heldTurns() >= 10);
    Map<String, Long> atTheStop = stack.statuses();

    stack.stopMongo();
    Thread.sleep(OUTAGE); // the fault itself: how long the server stays down
    stack.startMongoAgain();
    long backAt = System.nanoTime();

    await()
        .atMost(AFTER_THE_OUTAGE)
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> stack.tasksEnded() == RUNS && stack.answers().size() >= RUNS);
    long seconds = Duration.ofNanos(System.nanoTime() - backAt).toSeconds();
    // Everything published has been consumed, so a late duplicate would be stored by now.
    Topology topology = new Topology(stack.kafka.bootstrapServers());
    await().atMost(AFTER_THE_OUTAGE).until(topology::consumersCaughtUp);
    int deadLetters = topology.readAll(Topics.DEAD_LETTERS).size();
    System.out.printf(
        "MONGODB STOPPED %d s: tasks at the stop %s; %d runs ended %s, %d s after it was back;"
            + " %d dead letters, none replayed%n",
        OUTAGE.toSeconds(), atTheStop, RUNS, stack.statuses(), seconds, deadLetters);

    assertThat(stack.statuses()).as("how the runs ended").isEqualTo(Map.of("success", (long) RUNS));
    assertThat(stack.answersPerTask()).hasSize(RUNS).allSatisfy((t, n) -> assertThat(n).isOne());
    assertThat(stack.toolResultsPerCall())
        .hasSizeGreaterThanOrEqualTo(RUNS)
        .allSatisfy((c, n) -> assertThat(n).isOne());
    assertThat(stack.services.allAlive()).isTrue();
  }
}
