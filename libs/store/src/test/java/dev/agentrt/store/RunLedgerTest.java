package dev.agentrt.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

/** The run-event ledger on a real MongoDB-protocol server. */
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
  void theSameStepRecordedAgainIsOneEventAndTakesNoPosition() {
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));

    ledger.append(chat.id(), "step/1", RunEvent.STEP_END, null, null, null, RunLedger.data());
    ledger.append(chat.id(), "step/1", RunEvent.STEP_END, null, null, null, RunLedger.data());
    ledger.append(chat.id(), List.of(step("step/2"), step("step/1"), step("step/3")));

    assertThat(ledger.after(chat.id(), 0, 100))
        .extracting(RunEvent::id, RunEvent::seq)
        .containsExactly(
            tuple(chat.id() + "/step/1", 1L),
            tuple(chat.id() + "/step/2", 2L),
            tuple(chat.id() + "/step/3", 3L));
  }

  /**
   * Two processes take turns in one chat, as agent-loop and tool-runner do, each knowing only its
   * own last position: each finds its next one taken and goes after the other's event.
   */
  @Test
  void appendsOfTwoProcessesTakingTurnsLeaveNoGapAndKeepTheirOrder() {
    RunLedger other = new RunLedger(mongo);
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));

    for (int i = 0; i < 3; i++) {
      ledger.append(chat.id(), List.of(step("a" + i), step("b" + i)));
      other.append(chat.id(), List.of(step("c" + i)));
    }

    assertThat(ledger.after(chat.id(), 0, 100))
        .extracting(RunEvent::id)
        .containsExactly(
            IntStream.range(0, 3)
                .boxed()
                .flatMap(i -> Stream.of("a" + i, "b" + i, "c" + i))
                .map(k -> chat.id() + "/" + k)
                .toArray(String[]::new));
    assertThat(ledger.after(chat.id(), 0, 100))
        .extracting(RunEvent::seq)
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 9).boxed().toList());
  }

  /**
   * The position a process passes on with an event it publishes is where the consumer's next append
   * goes: it reads no last event; a process told nothing reads it.
   */
  @Test
  void aPositionPassedOnSparesTheConsumerTheReadOfTheLastEvent() {
    List<String> commands = new CopyOnWriteArrayList<>();
    try (MongoClient counted = countingClient(commands)) {
      MongoTemplate template = new MongoTemplate(counted, "agentrt");
      Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));
      ledger.append(chat.id(), List.of(step("a"), step("b")));
      Map<String, String> header = ledger.positionHeader(chat.id());
      assertThat(header).containsEntry(RunLedger.POSITION_HEADER, "2");

      RunLedger told = new RunLedger(template);
      told.learn(
          chat.id(),
          (Object) header.get(RunLedger.POSITION_HEADER).getBytes(StandardCharsets.UTF_8));
      told.append(chat.id(), List.of(step("c")));
      assertThat(commands)
          .as("told")
          .doesNotContain("find run_events")
          .contains("insert run_events");

      commands.clear();
      RunLedger untold = new RunLedger(template);
      untold.append(chat.id(), List.of(step("d")));
      assertThat(commands).as("not told").contains("find run_events");
      assertThat(ledger.after(chat.id(), 0, 100))
          .extracting(RunEvent::seq)
          .containsExactly(1L, 2L, 3L, 4L);
    }
  }

  /**
   * A process told that others wrote since its own last append reads the chat's last event instead
   * of trying its own next position, which is taken (one insert, not a failed one and another); a
   * position it learned from them since stands.
   */
  @Test
  void othersWritingSinceTheOwnLastAppendHaveItReadUnlessTheyPassedTheirPositionOn() {
    List<String> commands = new CopyOnWriteArrayList<>();
    try (MongoClient counted = countingClient(commands)) {
      RunLedger own = new RunLedger(new MongoTemplate(counted, "agentrt"));
      RunLedger other = new RunLedger(mongo);
      Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));
      own.append(chat.id(), List.of(step("a")));
      other.append(chat.id(), List.of(step("b")));

      commands.clear();
      own.othersWrote(chat.id());
      own.append(chat.id(), List.of(step("c")));
      assertThat(commands)
          .as("its own position forgotten")
          .containsExactly("find run_events", "insert run_events");

      other.append(chat.id(), List.of(step("d")));
      own.learn(chat.id(), 4);
      commands.clear();
      own.othersWrote(chat.id());
      own.append(chat.id(), List.of(step("e")));
      assertThat(commands).as("a learned position kept").containsExactly("insert run_events");
      assertThat(ledger.after(chat.id(), 0, 100))
          .extracting(RunEvent::seq)
          .containsExactly(1L, 2L, 3L, 4L, 5L);
    }
  }

  /** A client to the test's server that notes each command as {@code <name> <collection>}. */
  private static MongoClient countingClient(List<String> commands) {
    return MongoClients.create(
        MongoClientSettings.builder()
            .applyConnectionString(
                new ConnectionString("mongodb://127.0.0.1:" + server.getLocalAddress().getPort()))
            .addCommandListener(
                new CommandListener() {
                  @Override
                  public void commandStarted(CommandStartedEvent event) {
                    commands.add(
                        event.getCommandName()
                            + " "
                            + (event.getCommand().get(event.getCommandName())
                                    instanceof BsonString collection
                                ? collection.getValue()
                                : ""));
                  }
                })
            .build());
  }

  @Test
  void countsGoToTheChatOnceWhetherOrNotTheStepsWereRecordedBefore() {
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH));

    ledger.append(chat.id(), List.of(step("s")), Map.of("usage.turns", 1L));
    ledger.append(chat.id(), List.of(step("s")), Map.of("usage.turns", 1L));

    org.bson.Document stored =
        mongo
            .getCollection(Collections.CHATS)
            .find(new org.bson.Document("_id", chat.id()))
            .first();
    assertThat(stored.get("usage", org.bson.Document.class).get("turns")).isEqualTo(2L);
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

  /**
   * Eight processes (a ledger each, none knowing the others' positions) append pairs of steps to
   * one chat at once: positions 1 to 160 without a gap, each pair in its order.
   */
  @Test
  void concurrentAppendsOfManyProcessesGetDistinctPositionsInOrder() throws Exception {
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
                            RunLedger own = new RunLedger(mongo);
                            start.await();
                            for (int j = 0; j < 10; j++) {
                              own.append(
                                  chat.id(),
                                  List.of(step(i + "/" + j + "/1"), step(i + "/" + j + "/2")));
                            }
                            return null;
                          }))
              .<Future<?>>map(f -> f)
              .toList();
      for (Future<?> f : done) {
        f.get();
      }
    }

    List<RunEvent> events = ledger.after(chat.id(), 0, 1000);
    assertThat(events)
        .extracting(RunEvent::seq)
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 160).boxed().toList());
    Map<String, Long> seqs = events.stream().collect(Collectors.toMap(RunEvent::id, RunEvent::seq));
    for (int i = 0; i < writers; i++) {
      for (int j = 0; j < 10; j++) {
        String pair = chat.id() + "/" + i + "/" + j + "/";
        assertThat(seqs.get(pair + "1")).as(pair).isLessThan(seqs.get(pair + "2"));
      }
    }
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

  private static RunLedger.Step step(String key) {
    return new RunLedger.Step(key, RunEvent.STEP_START, null, null, null, RunLedger.data());
  }

  @Test
  void excerptsCutLongTextAndDataNeedsPairs() {
    assertThat(RunLedger.excerpt("x".repeat(RunLedger.EXCERPT + 5)))
        .hasSize(RunLedger.EXCERPT + 1)
        .endsWith("…");
    assertThat(RunLedger.excerpt("short")).isEqualTo("short");
    assertThatThrownBy(() -> RunLedger.data("lonely")).isInstanceOf(IllegalArgumentException.class);
  }

  // StepStarts: a step's start recorded with its end, or on its own; once, and before the end.

  @Test
  void aStepThatEndsBeforeItsStartIsShownHasBothRecordedTogether() {
    try (StepStarts starts = new StepStarts(ledger, Duration.ofMinutes(1), "test-starts")) {
      String chat = aChat();

      starts.begin(chat, aStep("start", RunEvent.STEP_START)).withEnd(List.of(aStep("end", "x")));

      List<RunEvent> events = ledger.after(chat, 0, 10);
      assertThat(events)
          .extracting(RunEvent::type, RunEvent::seq)
          .containsExactly(tuple(RunEvent.STEP_START, 1L), tuple("x", 2L));
      assertThat(events.getFirst().at()).as("one append").isEqualTo(events.getLast().at());
    }
  }

  @Test
  void aStepStillRunningHasItsStartShownOnItsOwnAndItsEndFollows() {
    try (StepStarts starts = new StepStarts(ledger, Duration.ofMillis(1), "test-starts")) {
      String chat = aChat();

      StepStarts.Start start = starts.begin(chat, aStep("start", RunEvent.STEP_START));
      await() // the timer records the start on its own
          .atMost(Duration.ofSeconds(10))
          .until(() -> !ledger.after(chat, 0, 10).isEmpty());
      start.withEnd(List.of(aStep("end", "x")));

      assertThat(ledger.after(chat, 0, 10))
          .extracting(RunEvent::type)
          .containsExactly(RunEvent.STEP_START, "x");
    }
  }

  /** The start shown on its own and the end coming at the same moment: the start once, first. */
  @Test
  void aStartShownAloneAsItsEndComesIsRecordedOnceBeforeIt() throws Exception {
    try (StepStarts starts = new StepStarts(ledger, Duration.ofMinutes(1), "test-starts")) {
      for (int i = 0; i < 20; i++) {
        String chat = aChat();
        StepStarts.Start start = starts.begin(chat, aStep("start", RunEvent.STEP_START));
        CyclicBarrier together = new CyclicBarrier(2);
        Thread alone =
            Thread.ofVirtual()
                .start(
                    () -> {
                      meet(together);
                      start.alone();
                    });
        meet(together);
        start.withEnd(List.of(aStep("end", "x")));
        alone.join();

        assertThat(ledger.after(chat, 0, 10))
            .extracting(RunEvent::type)
            .containsExactly(RunEvent.STEP_START, "x");
      }
    }
  }

  private static String aChat() {
    return mongo.insert(new Chat(Ids.fresh(), "t", Instant.now())).id();
  }

  private static RunLedger.Step aStep(String key, String type) {
    return new RunLedger.Step(key, type, "task", "sub-agent", null, RunLedger.data("k", key));
  }

  private static void meet(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
