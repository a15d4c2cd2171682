package dev.agentrt.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

/** Paging through stale tasks on a real MongoDB-protocol server. */
class StaleTasksTest {

  private static final Instant T0 = Instant.parse("2026-11-22T12:00:00Z");

  private static MongoServer server;
  private static MongoClient client;
  private static MongoTemplate mongo;

  @BeforeAll
  static void start() {
    server = new MongoServer(new MemoryBackend());
    client = MongoClients.create("mongodb://127.0.0.1:" + server.bind().getPort());
    mongo = new MongoTemplate(client, "agentrt");
    new StoreIndexes(mongo).afterPropertiesSet();
  }

  @AfterAll
  static void stop() {
    client.close();
    server.shutdownNow();
  }

  @Test
  void goesOnWhereTheLastBatchStoppedAndStartsOverAfterTheLast() {
    task("a", TaskStatus.waiting, 1);
    task("b", TaskStatus.waiting, 2);
    task("c", TaskStatus.waiting, 2);
    task("d", TaskStatus.running, 3);
    task("e", TaskStatus.waiting, 4);
    task("f", TaskStatus.waiting, 9);
    StaleTasks stale = new StaleTasks(mongo, List.of(TaskStatus.waiting), 2);
    Instant before = T0.plusSeconds(5);

    assertThat(ids(stale.next(null, before))).containsExactly("a", "b");
    assertThat(ids(stale.next(null, before))).containsExactly("c", "e");
    assertThat(ids(stale.next(null, before))).isEmpty();
    assertThat(ids(stale.next(T0.plusSeconds(2), before))).containsExactly("b", "c");
  }

  private static List<String> ids(List<Task> tasks) {
    return tasks.stream().map(Task::id).toList();
  }

  private static void task(String id, TaskStatus status, int second) {
    Instant at = T0.plusSeconds(second);
    mongo.insert(
        new Task(
            id,
            "chat",
            Task.TYPE_AGENT,
            "researcher",
            "x",
            status,
            null,
            null,
            null,
            at,
            at,
            List.of()));
  }
}
