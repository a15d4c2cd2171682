package dev.agentrt.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * The run-event ledger on a real MongoDB-protocol server, and a step's start recorded with its end
 * or on its own ({@link DeferredStart}).
 */
class RunLedgerTest {

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
  void countsEachRunEndOnceByAgentAndWhy() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    RunLedger counting = new RunLedger(mongo, meters);
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));
    Map<String, Object> done = RunLedger.data("status", "completed", "reason", null);
    Map<String, Object> late = RunLedger.data("status", "failed", "reason", "timeout");

    counting.append(chat.id(), "run_end/1", RunEvent.RUN_END, "t", "s", "researcher", done);
    counting.append(chat.id(), "run_end/1", RunEvent.RUN_END, "t", "s", "researcher", done);
    counting.append(chat.id(), "run_end/2", RunEvent.RUN_END, "t", "s", "researcher", late);
    counting.append(chat.id(), "step/3", RunEvent.STEP_START, "t", "s", "researcher", late);

    assertThat(meters.get("agentrt.runs.ended").tag("reason", "success").counter().count())
        .as("recorded twice, ended once")
        .isEqualTo(1.0);
    assertThat(
            meters
                .get("agentrt.runs.ended")
                .tags("reason", "timeout", "agent", "researcher")
                .counter()
                .count())
        .isEqualTo(1.0);
    assertThat(meters.get("agentrt.runs.ended").counters()).hasSize(2);
  }

  @Test
  void everyRunStartAndOnlyItIsStampedWithTheConfigurationsVersion() {
    RunLedger stamping =
        new RunLedger(mongo, new SimpleMeterRegistry(), new ConfigVersion("0123456789abcdef"));
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));

    stamping.append(
        chat.id(),
        "run_start/1",
        RunEvent.RUN_START,
        "t",
        "s",
        "researcher",
        RunLedger.data("agent", "researcher"));
    stamping.append(
        chat.id(), "step_start/1", RunEvent.STEP_START, "t", "s", "researcher", RunLedger.data());

    assertThat(ledger.after(chat.id(), 0, 10))
        .extracting(RunEvent::data)
        .containsExactly(
            Map.of("agent", "researcher", "configVersion", "0123456789abcdef"), Map.of());
  }

  @Test
  void aToolCallsEventNamesItsToolAndInputUnderBothNames() {
    assertThat(RunLedger.toolCall("tc-1", "step-1", "read_doc", "{\"path\":\"docs/kafka.md\"}"))
        .containsExactly(
            Map.entry("toolCallId", "tc-1"),
            Map.entry("stepId", "step-1"),
            Map.entry("tool", "read_doc"),
            Map.entry("arguments", "{\"path\":\"docs/kafka.md\"}"),
            Map.entry("toolName", "read_doc"),
            Map.entry("toolInput", "{\"path\":\"docs/kafka.md\"}"));
  }

  @Test
  void numbersEachChatsEventsFromOneInOrder() {
    Chat first = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));
    Chat second = mongo.insert(new Chat(Ids.fresh(), "b", Instant.EPOCH));

    ledger.append(first.id(), "k1", RunEvent.RUN_START, "t", "s", "researcher", RunLedger.data());
    ledger.append(second.id(), "k1", RunEvent.RUN_START, null, null, null, RunLedger.data());
    ledger.append(
        first.id(),
        "k2",
        RunEvent.STEP_START,
        "t",
        "s",
        "researcher",
        RunLedger.data("step", 1, "model", null));

    List<RunEvent> events = ledger.after(first.id(), 0, 100);
    assertThat(events).extracting(RunEvent::seq).containsExactly(1L, 2L);
    assertThat(events).extracting(RunEvent::type).containsExactly("run_start", "step_start");
    assertThat(events.get(1).data()).containsEntry("step", 1).containsEntry("model", null);
    assertThat(events.get(1).agent()).isEqualTo("researcher");
    assertThat(ledger.after(second.id(), 0, 100)).extracting(RunEvent::seq).containsExactly(1L);
    assertThat(ledger.after(first.id(), 1, 100)).extracting(RunEvent::seq).containsExactly(2L);
  }

  @Test
  void theSameStepRecordedTwiceIsOneEventAndItsSecondPositionIsSkipped() {
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));

    ledger.append(chat.id(), "step/1", RunEvent.STEP_END, null, null, null, RunLedger.data());
    ledger.append(chat.id(), "step/1", RunEvent.STEP_END, null, null, null, RunLedger.data());
    ledger.append(chat.id(), "step/2", RunEvent.STEP_END, null, null, null, RunLedger.data());

    assertThat(ledger.after(chat.id(), 0, 100))
        .extracting(RunEvent::id)
        .containsExactly(chat.id() + "/step/1", chat.id() + "/step/2");
    assertThat(ledger.after(chat.id(), 0, 100)).extracting(RunEvent::seq).containsExactly(1L, 3L);
    assertThat(ledger.skipped(chat.id(), 2, 2)).as("the duplicate's position").isTrue();
    assertThat(ledger.skipped(chat.id(), 1, 2)).as("position 1 holds an event").isFalse();
    assertThat(ledger.skipped(chat.id(), 2, 3)).as("position 3 holds an event").isFalse();
    assertThat(ledger.skipped(chat.id(), 4, 4)).as("not taken yet").isFalse();
  }

  /**
   * Eight writers record the same run end and a step of their own at once, so that their inserts go
   * out together: the duplicates among them stop none of the others, and the run end counts once.
   */
  @Test
  void aStepRecordedByManyAtOnceIsOneEventAndHoldsUpNoOther() throws Exception {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    RunLedger counting = new RunLedger(mongo, meters);
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));
    Map<String, Object> done = RunLedger.data("status", "completed", "reason", null);
    int writers = 8;
    CyclicBarrier start = new CyclicBarrier(writers);
    try (ExecutorService pool = Executors.newFixedThreadPool(writers)) {
      List<Future<?>> all =
          IntStream.range(0, writers)
              .<Future<?>>mapToObj(
                  i ->
                      pool.submit(
                          () -> {
                            start.await();
                            counting.append(
                                chat.id(), "run_end/1", RunEvent.RUN_END, "t", "s", "r", done);
                            counting.append(
                                chat.id(), "own/" + i, RunEvent.STEP_START, "t", "s", "r", done);
                            return null;
                          }))
              .toList();
      for (Future<?> f : all) {
        f.get();
      }
    }

    assertThat(ledger.after(chat.id(), 0, 100))
        .extracting(RunEvent::id)
        .containsExactlyInAnyOrderElementsOf(
            IntStream.range(-1, writers)
                .mapToObj(i -> chat.id() + (i < 0 ? "/run_end/1" : "/own/" + i))
                .toList());
    assertThat(meters.get("agentrt.runs.ended").counter().count()).isEqualTo(1.0);
  }

  @Test
  void concurrentAppendsGetDistinctPositions() throws Exception {
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));
    int writers = 8;
    CyclicBarrier start = new CyclicBarrier(writers);
    try (ExecutorService pool = Executors.newFixedThreadPool(writers)) {
      List<Future<?>> done =
          IntStream.range(0, writers)
              .mapToObj(
                  i ->
                      pool.submit(
                          () -> {
                            start.await();
                            for (int j = 0; j < 10; j++) {
                              ledger.append(
                                  chat.id(),
                                  i + "/" + j,
                                  RunEvent.STEP_START,
                                  null,
                                  null,
                                  null,
                                  RunLedger.data());
                            }
                            return null;
                          }))
              .<Future<?>>map(f -> f)
              .toList();
      for (Future<?> f : done) {
        f.get();
      }
    }

    assertThat(ledger.after(chat.id(), 0, 1000))
        .extracting(RunEvent::seq)
        .containsExactlyElementsOf(IntStream.rangeClosed(1, 80).mapToObj(i -> (long) i).toList());
  }

  @Test
  void aChatMessageIsRecordedWithItsRoleAndText() {
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));

    ledger.message(
        new ChatMessage(
            Ids.fresh(), chat.id(), ChatMessage.USER, "hi", null, Instant.EPOCH, List.of()));

    RunEvent event = ledger.after(chat.id(), 0, 10).getFirst();
    assertThat(event.type()).isEqualTo(RunEvent.MESSAGE);
    assertThat(event.data()).containsEntry("role", "user").containsEntry("content", "hi");
  }

  @Test
  void anEventOfAnUnknownChatIsNotRecordedAndNothingThrows() {
    ledger.append("no-such-chat", "k", RunEvent.ERROR, null, null, null, RunLedger.data());

    assertThat(ledger.after("no-such-chat", 0, 10)).isEmpty();
  }

  @Test
  void excerptsCutLongTextAndDataNeedsPairs() {
    assertThat(RunLedger.excerpt("x".repeat(RunLedger.EXCERPT + 5)))
        .hasSize(RunLedger.EXCERPT + 1)
        .endsWith("…");
    assertThat(RunLedger.excerpt("short")).isEqualTo("short");
    assertThatThrownBy(() -> RunLedger.data("lonely")).isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * A step that ends before its start is shown: both in one take of two positions, the start first,
   * the counts added once in that take.
   */
  @Test
  void aQuickStepsStartIsRecordedWithItsEndInOneTake() {
    String chatId = chat();
    DeferredStart start =
        DeferredStart.of(ledger, chatId, step("start", RunEvent.STEP_START), Duration.ofMinutes(1));
    assertThat(ledger.after(chatId, 0, 10)).as("nothing before the step ends").isEmpty();

    start.withEnd(List.of(step("end", RunEvent.STEP_END)), Map.of("usage.tokens", 7L));

    assertThat(ledger.after(chatId, 0, 10))
        .extracting(RunEvent::type, RunEvent::seq)
        .containsExactly(tuple(RunEvent.STEP_START, 1L), tuple(RunEvent.STEP_END, 2L));
    assertThat(takes(chatId)).as("one take of both").containsExactly(2);
    assertThat(chatDocument(chatId).get("usage", Document.class).get("tokens")).isEqualTo(7L);
  }

  /**
   * A step still running after {@code shownAfter} (0: at once) has its start recorded on its own
   * while it runs; its end follows in a take of its own.
   */
  @Test
  void aSlowStepsStartIsShownWhileItRunsAndItsEndFollows() {
    for (Duration shownAfter : List.of(Duration.ofMillis(20), Duration.ZERO)) {
      String chatId = chat();

      DeferredStart start =
          DeferredStart.of(ledger, chatId, step("start", RunEvent.STEP_START), shownAfter);

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> ledger.after(chatId, 0, 10), events -> events.size() == 1);
      start.withEnd(List.of(step("end", RunEvent.STEP_END)), Map.of());
      assertThat(ledger.after(chatId, 0, 10))
          .as("shown after %s", shownAfter)
          .extracting(RunEvent::type, RunEvent::seq)
          .containsExactly(tuple(RunEvent.STEP_START, 1L), tuple(RunEvent.STEP_END, 2L));
      assertThat(takes(chatId)).containsExactly(1, 1);
    }
  }

  /**
   * A step whose work ended in time has its start recorded with its end however long what comes
   * between takes: its timer no longer fires.
   */
  @Test
  void aStepThatEndedInTimeIsNotShownOnItsOwnWhileItsEndIsWritten() {
    String chatId = chat();
    Duration shownAfter = Duration.ofSeconds(1);
    DeferredStart start =
        DeferredStart.of(ledger, chatId, step("start", RunEvent.STEP_START), shownAfter);

    start.ended();

    await()
        .during(shownAfter.plusMillis(500))
        .atMost(shownAfter.plusSeconds(5))
        .until(() -> ledger.after(chatId, 0, 10).isEmpty());
    start.withEnd(List.of(step("end", RunEvent.STEP_END)), Map.of());
    assertThat(ledger.after(chatId, 0, 10))
        .extracting(RunEvent::type)
        .containsExactly(RunEvent.STEP_START, RunEvent.STEP_END);
    assertThat(takes(chatId)).containsExactly(2);
  }

  /** A dropped start is not recorded, neither by its timer nor by anyone asking for it later. */
  @Test
  void aDroppedStartIsNotRecorded() {
    String chatId = chat();
    DeferredStart start =
        DeferredStart.of(ledger, chatId, step("start", RunEvent.STEP_START), Duration.ofMinutes(1));

    start.drop();
    start.now();

    assertThat(ledger.after(chatId, 0, 10)).isEmpty();
    assertThat(takes(chatId)).isEmpty();
  }

  /** A start asked for twice, by its timer and by its step, is recorded once. */
  @Test
  void aStartIsRecordedOnce() {
    String chatId = chat();
    DeferredStart start =
        DeferredStart.of(ledger, chatId, step("start", RunEvent.STEP_START), Duration.ofMinutes(1));

    start.now();
    start.now();
    start.withEnd(List.of(step("end", RunEvent.STEP_END)), Map.of());

    assertThat(ledger.after(chatId, 0, 10))
        .extracting(RunEvent::type)
        .containsExactly(RunEvent.STEP_START, RunEvent.STEP_END);
    assertThat(takes(chatId)).containsExactly(1, 1);
  }

  private static String chat() {
    return mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH)).id();
  }

  private static RunLedger.Step step(String key, String type) {
    return new RunLedger.Step(key, type, "t", "s", "researcher", RunLedger.data());
  }

  private static Document chatDocument(String chatId) {
    return mongo.getCollection(Collections.CHATS).find(new Document("_id", chatId)).first();
  }

  /** The counts of the chat's takes of positions, oldest first. */
  private static List<Integer> takes(String chatId) {
    return chatDocument(chatId)
        .getList(LedgerPositions.TAKES_FIELD, Document.class, List.of())
        .stream()
        .map(take -> ((Number) take.get("n")).intValue())
        .toList();
  }
}
