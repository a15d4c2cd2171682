package dev.agentrt.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Positions in chats' ledgers, taken by many callers at once, on a real MongoDB-protocol server.
 */
class LedgerPositionsTest {

  private static MongoServer server;
  private static MongoClient client;
  private static MongoTemplate mongo;
  private static final List<String> commands = new CopyOnWriteArrayList<>();

  /** A range of positions a take got. */
  private record Range(String chatId, long first, int count) {}

  @BeforeAll
  static void start() {
    server = new MongoServer(new MemoryBackend());
    CommandListener counting =
        new CommandListener() {
          @Override
          public void commandStarted(CommandStartedEvent event) {
            commands.add(event.getCommandName());
          }
        };
    client =
        MongoClients.create(
            MongoClientSettings.builder()
                .applyConnectionString(
                    new ConnectionString("mongodb://127.0.0.1:" + server.bind().getPort()))
                .addCommandListener(counting)
                .build());
    mongo = new MongoTemplate(client, "agentrt");
  }

  @AfterAll
  static void stop() {
    client.close();
    server.shutdownNow();
  }

  @BeforeEach
  void empty() {
    mongo.getDb().drop();
    commands.clear();
  }

  /**
   * Takes of three chats queued together (two of one chat among them) go out as one update and one
   * read, and each gets positions of its own: per chat, the takes cover 1… without gap or overlap,
   * in the order they were queued.
   */
  @Test
  void takesQueuedTogetherTakeOneWriteAndOneReadAndEachGetsItsOwnPositions() throws Exception {
    String a = chat();
    String b = chat();
    LedgerPositions positions = new LedgerPositions(mongo, LedgerPositions.KEPT, false);
    CompletableFuture<OptionalLong> a1 = positions.queue(a, 2, Map.of());
    CompletableFuture<OptionalLong> b1 = positions.queue(b, 1, Map.of());
    CompletableFuture<OptionalLong> a2 = positions.queue(a, 3, Map.of());
    CompletableFuture<OptionalLong> none = positions.queue("no-such-chat", 1, Map.of());
    commands.clear();

    positions.start();

    assertThat(a1.get(10, TimeUnit.SECONDS)).hasValue(1);
    assertThat(b1.get(10, TimeUnit.SECONDS)).hasValue(1);
    assertThat(a2.get(10, TimeUnit.SECONDS)).hasValue(3);
    assertThat(none.get(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(commands).containsExactly("update", "find");
    assertThat(positions.take(a, 1, Map.of())).as("alone: one findAndModify").hasValue(6);
    assertThat(commands).containsExactly("update", "find", "findAndModify");
  }

  /**
   * Eight callers on each of two instances (two processes) take 1–3 positions in three chats forty
   * times each, all at once: per chat the ranges taken are disjoint and cover exactly the positions
   * the chat's counter passed.
   */
  @Test
  void takesRacingFromTwoInstancesNeverShareAPositionAndLeaveNoGap() throws Exception {
    List<String> chats = List.of(chat(), chat(), chat());
    List<LedgerPositions> instances =
        List.of(new LedgerPositions(mongo), new LedgerPositions(mongo));
    ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();
    CyclicBarrier start = new CyclicBarrier(16);
    List<Future<List<Range>>> work = new ArrayList<>();
    for (int c = 0; c < 16; c++) {
      LedgerPositions instance = instances.get(c % 2);
      int caller = c;
      work.add(
          callers.submit(
              () -> {
                start.await();
                List<Range> taken = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                  String chatId = chats.get((caller + i) % 3);
                  int count = 1 + (caller * 7 + i) % 3;
                  taken.add(
                      new Range(
                          chatId, instance.take(chatId, count, Map.of()).orElseThrow(), count));
                }
                return taken;
              }));
    }
    List<Range> ranges = new ArrayList<>();
    for (Future<List<Range>> caller : work) {
      // A bound on liveness only, not on speed: 640 takes, each a round trip that a starved
      // machine has been seen to stretch past a second.
      ranges.addAll(caller.get(3, TimeUnit.MINUTES));
    }
    callers.shutdown();

    for (String chatId : chats) {
      TreeSet<Long> taken = new TreeSet<>();
      long count = 0;
      for (Range range : ranges) {
        if (range.chatId().equals(chatId)) {
          for (long p = range.first(); p < range.first() + range.count(); p++) {
            assertThat(taken.add(p)).as("position %d of %s taken twice", p, chatId).isTrue();
          }
          count += range.count();
        }
      }
      assertThat(taken.first()).isEqualTo(1);
      assertThat(taken.last()).isEqualTo(count).isEqualTo(counter(chatId));
    }
  }

  /** Takes of one chat queued together are one take of their sum: one findAndModify. */
  @Test
  void takesOfOneChatQueuedTogetherAreOneTake() throws Exception {
    String chatId = chat();
    LedgerPositions positions = new LedgerPositions(mongo, 1, false);
    CompletableFuture<OptionalLong> first = positions.queue(chatId, 2, Map.of());
    CompletableFuture<OptionalLong> second = positions.queue(chatId, 1, Map.of());
    commands.clear();

    positions.start();

    assertThat(first.get(10, TimeUnit.SECONDS)).hasValue(1);
    assertThat(second.get(10, TimeUnit.SECONDS)).hasValue(3);
    assertThat(commands).containsExactly("findAndModify");
    assertThat(counter(chatId)).isEqualTo(3);
  }

  /**
   * Counts that ride on takes are added in the takes' own write: summed per chat when takes of
   * several chats go out together (one update, one read), and by the findAndModify of a take alone.
   */
  @Test
  void countsAreAddedToTheChatInTheWriteThatTakesThePositions() throws Exception {
    String a = chat();
    String b = chat();
    LedgerPositions positions = new LedgerPositions(mongo, LedgerPositions.KEPT, false);
    CompletableFuture<OptionalLong> a1 = positions.queue(a, 1, Map.of("usage.turns", 1L));
    CompletableFuture<OptionalLong> b1 = positions.queue(b, 1, Map.of());
    CompletableFuture<OptionalLong> a2 =
        positions.queue(a, 2, Map.of("usage.turns", 2L, "usage.promptTokens", 40L));
    commands.clear();

    positions.start();

    assertThat(a1.get(10, TimeUnit.SECONDS)).hasValue(1);
    assertThat(b1.get(10, TimeUnit.SECONDS)).hasValue(1);
    assertThat(a2.get(10, TimeUnit.SECONDS)).hasValue(2);
    assertThat(commands).containsExactly("update", "find");
    assertThat(usage(a)).isEqualTo(new Document("turns", 3L).append("promptTokens", 40L));
    assertThat(usage(b)).isNull();

    commands.clear();
    assertThat(positions.take(b, 1, Map.of("usage.turns", 5L))).hasValue(2);
    assertThat(commands).containsExactly("findAndModify");
    assertThat(usage(b)).isEqualTo(new Document("turns", 5L));
    assertThat(counter(a)).isEqualTo(3);
  }

  /**
   * Where a take landed, read from the chat: the counter less the takes made after it; nothing when
   * the chat no longer keeps it (it is then taken again).
   */
  @Test
  void aTakeLandsBeforeTheTakesMadeAfterItAndIsUnknownOnceForgotten() {
    ObjectId mine = new ObjectId();
    LedgerPositions.Take take = new LedgerPositions.Take("c", 2, mine, Map.of());
    Document chat =
        new Document(RunLedger.SEQ_FIELD, 10L)
            .append(
                LedgerPositions.TAKES_FIELD,
                List.of(
                    new Document("t", new ObjectId()).append("n", 1),
                    new Document("t", mine).append("n", 2),
                    new Document("t", new ObjectId()).append("n", 3),
                    new Document("t", new ObjectId()).append("n", 1)));

    assertThat(LedgerPositions.landed(take, chat)).isEqualTo(new LedgerPositions.Taken(5, null));
    chat.put(
        LedgerPositions.TAKES_FIELD, List.of(new Document("t", new ObjectId()).append("n", 1)));
    assertThat(LedgerPositions.landed(take, chat)).isNull();
  }

  private static String chat() {
    return mongo.insert(new Chat(Ids.fresh(), "a", Instant.EPOCH)).id();
  }

  private static @Nullable Document usage(String chatId) {
    return mongo
        .getCollection(Collections.CHATS)
        .find(new Document("_id", chatId))
        .first()
        .get("usage", Document.class);
  }

  private static long counter(String chatId) {
    return ((Number)
            mongo
                .getCollection(Collections.CHATS)
                .find(new Document("_id", chatId))
                .first()
                .get(RunLedger.SEQ_FIELD))
        .longValue();
  }
}
