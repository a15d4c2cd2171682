package dev.agentrt.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.data.annotation.Id;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.index.Index;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Inserts, updates and deletes of many callers in one bulk write per collection, and updates and
 * deletes made later ({@link LaterUpdates}), on a real MongoDB-protocol server.
 */
class BulkWritesTest {

  private static MongoServer server;
  private static MongoClient client;
  private static MongoTemplate mongo;
  private static final List<String> updateCommands = new CopyOnWriteArrayList<>();
  private static final List<String> insertCommands = new CopyOnWriteArrayList<>();
  private static final List<String> findCommands = new CopyOnWriteArrayList<>();
  private static final List<String> deleteCommands = new CopyOnWriteArrayList<>();

  /** An entity as the stores' are: its id a string, an instant and an enum among its fields. */
  @org.springframework.data.mongodb.core.mapping.Document("notes")
  record Note(@Id String id, DayOfWeek day, Instant at) {}

  @BeforeAll
  static void start() {
    server = new MongoServer(new MemoryBackend());
    CommandListener counting =
        new CommandListener() {
          @Override
          public void commandStarted(CommandStartedEvent event) {
            if (event.getCommandName().equals("update")) {
              updateCommands.add(event.getCommand().getString("update").getValue());
            } else if (event.getCommandName().equals("insert")) {
              insertCommands.add(event.getCommand().getString("insert").getValue());
            } else if (event.getCommandName().equals("find")) {
              findCommands.add(event.getCommand().getString("find").getValue());
            } else if (event.getCommandName().equals("delete")) {
              deleteCommands.add(event.getCommand().getString("delete").getValue());
            }
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
    updateCommands.clear();
    insertCommands.clear();
    findCommands.clear();
    deleteCommands.clear();
  }

  /**
   * What was queued while the writer was busy (here: before it started) goes out together: 30
   * updates to two collections take one update command each, and each changes only its document.
   */
  @Test
  void updatesQueuedTogetherTakeOneCommandPerCollection() throws Exception {
    BulkWrites updates = new BulkWrites(mongo, false);
    List<CompletableFuture<Void>> queued = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String collection = i % 3 == 0 ? "chats" : "tasks";
      insert(collection, "doc-" + i, new Document("n", 0));
      queued.add(updates.queue(Filters.eq("_id", "doc-" + i), Updates.inc("n", i), collection));
    }

    updates.start();
    CompletableFuture.allOf(queued.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);

    assertThat(updateCommands).containsExactlyInAnyOrder("chats", "tasks");
    for (int i = 0; i < 30; i++) {
      String collection = i % 3 == 0 ? "chats" : "tasks";
      assertThat(find(collection, "doc-" + i).getInteger("n")).isEqualTo(i);
    }
    updates.close();
  }

  /** One update's write error fails its own caller, with why; the rest of its batch is written. */
  @Test
  void anUpdateThatFailsFailsOnlyItsCaller() throws Exception {
    insert("tasks", "a", new Document("n", 1));
    insert("tasks", "b", new Document("n", "not a number"));
    insert("tasks", "c", new Document("n", 1));
    BulkWrites updates = new BulkWrites(mongo, false);
    CompletableFuture<Void> a = updates.queue(Filters.eq("_id", "a"), Updates.inc("n", 1), "tasks");
    CompletableFuture<Void> b = updates.queue(Filters.eq("_id", "b"), Updates.inc("n", 1), "tasks");
    CompletableFuture<Void> c = updates.queue(Filters.eq("_id", "c"), Updates.inc("n", 1), "tasks");

    updates.start();

    a.get(10, TimeUnit.SECONDS);
    c.get(10, TimeUnit.SECONDS);
    assertThatThrownBy(() -> b.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .hasMessageContaining("write to tasks failed");
    assertThat(find("tasks", "a").getInteger("n")).isEqualTo(2);
    assertThat(find("tasks", "b").getString("n")).isEqualTo("not a number");
    assertThat(find("tasks", "c").getInteger("n")).isEqualTo(2);
    assertThat(updateCommands).as("the three in one command").hasSize(1);
    assertThatThrownBy(() -> updates.update(Filters.eq("_id", "b"), Updates.inc("n", 1), "tasks"))
        .as("update() waits and throws why")
        .hasMessageContaining("write to tasks failed");
    updates.close();
  }

  /**
   * Inserts queued together go out as one insert command, mapped as {@code MongoTemplate.insert}
   * maps the entity; one whose id is taken fails its own caller with a {@link
   * DuplicateKeyException}, the others are written.
   */
  @Test
  void insertsQueuedTogetherTakeOneCommandAndATakenIdFailsOnlyItsCaller() throws Exception {
    Instant at = Instant.parse("2026-11-25T06:00:00Z");
    mongo.insert(new Note("taken", DayOfWeek.MONDAY, at));
    insertCommands.clear();
    BulkWrites writes = new BulkWrites(mongo, false);
    List<CompletableFuture<Void>> queued = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      queued.add(writes.queueInsert(new Note("note-" + i, DayOfWeek.TUESDAY, at.plusSeconds(i))));
    }
    CompletableFuture<Void> taken =
        writes.queueInsert(new Note("taken", DayOfWeek.FRIDAY, at.plusSeconds(60)));

    writes.start();
    CompletableFuture.allOf(queued.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);

    assertThatThrownBy(() -> BulkWrites.await(taken)).isInstanceOf(DuplicateKeyException.class);
    assertThat(insertCommands).as("six inserts, one command").containsExactly("notes");
    assertThat(mongo.findAll(Note.class))
        .as("read back as the entity they were written from")
        .hasSize(6)
        .contains(new Note("note-3", DayOfWeek.TUESDAY, at.plusSeconds(3)))
        .contains(new Note("taken", DayOfWeek.MONDAY, at));
    assertThatThrownBy(() -> writes.insert(new Note("note-1", DayOfWeek.MONDAY, at)))
        .as("insert() waits and throws why")
        .isInstanceOf(DuplicateKeyException.class);
    writes.close();
  }

  /**
   * A document written once: the first {@code insertOrFind} inserts it and reads nothing; a second
   * with its id, whatever else it holds, gets the first one as stored and changes nothing.
   */
  @Test
  void insertOrFindInsertsOnceThenFindsTheFirstAsStored() {
    Instant at = Instant.parse("2026-11-25T06:00:00Z");
    Note first = new Note("once", DayOfWeek.MONDAY, at);
    try (BulkWrites writes = new BulkWrites(mongo)) {
      BulkWrites.Stored<Note> inserted = writes.insertOrFind(first);

      assertThat(inserted).isEqualTo(new BulkWrites.Stored<>(first, true));
      assertThat(insertCommands).containsExactly("notes");
      assertThat(findCommands).as("an insert that succeeds reads nothing").isEmpty();

      BulkWrites.Stored<Note> found =
          writes.insertOrFind(new Note("once", DayOfWeek.FRIDAY, at.plusSeconds(60)));

      assertThat(found).isEqualTo(new BulkWrites.Stored<>(first, false));
      assertThat(findCommands).as("the one stored, read back").containsExactly("notes");
    }
    assertThat(mongo.findAll(Note.class)).containsExactly(first);
  }

  /**
   * A key taken that is not the entity's id fails {@code insertOrFind} as it fails {@link
   * BulkWrites#insert}: no document with its id is stored to find.
   */
  @Test
  void insertOrFindOfAnEntityWhoseOtherUniqueKeyIsTakenThrows() {
    Instant at = Instant.parse("2026-11-25T06:00:00Z");
    mongo.indexOps(Note.class).createIndex(new Index().on("day", Sort.Direction.ASC).unique());
    mongo.insert(new Note("monday", DayOfWeek.MONDAY, at));
    try (BulkWrites writes = new BulkWrites(mongo)) {
      assertThatThrownBy(() -> writes.insertOrFind(new Note("other", DayOfWeek.MONDAY, at)))
          .isInstanceOf(DuplicateKeyException.class);
    }
    assertThat(mongo.findAll(Note.class)).containsExactly(new Note("monday", DayOfWeek.MONDAY, at));
  }

  /**
   * A query and update of Spring Data are mapped as {@code updateFirst} by collection name maps
   * them: an enum as its name, an instant as a date; an update matching nothing changes nothing.
   */
  @Test
  void springDataQueriesAndUpdatesAreMappedAsUpdateFirstMapsThem() {
    insert("sub_agents", "s", new Document("day", "MONDAY"));
    Instant at = Instant.parse("2026-11-25T06:00:00Z");
    try (BulkWrites updates = new BulkWrites(mongo)) {
      updates.update(
          Query.query(
              Criteria.where("_id").is("s").and("day").in(DayOfWeek.MONDAY, DayOfWeek.TUESDAY)),
          new Update().set("at", at).set("day", DayOfWeek.FRIDAY),
          "sub_agents");
      updates.update(
          Query.query(Criteria.where("_id").is("s").and("day").is(DayOfWeek.MONDAY)),
          new Update().set("missed", true),
          "sub_agents");
    }

    Document stored = find("sub_agents", "s");
    assertThat(stored.getString("day")).isEqualTo("FRIDAY");
    assertThat(stored.getDate("at")).isEqualTo(Date.from(at));
    assertThat(stored).doesNotContainKey("missed");
  }

  /**
   * Conditional updates queued together that all match take one update command and no read, and
   * each is told it matched.
   */
  @Test
  void conditionalUpdatesThatAllMatchTakeOneCommandAndNoRead() throws Exception {
    BulkWrites writes = new BulkWrites(mongo, false);
    List<CompletableFuture<Boolean>> queued = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      insert("calls", "c" + i, new Document("status", "running"));
      queued.add(
          writes.queueIfMatches(
              "c" + i, Filters.eq("status", "running"), Updates.set("status", "success"), "calls"));
    }

    writes.start();

    for (CompletableFuture<Boolean> matched : queued) {
      assertThat(matched.get(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(updateCommands).containsExactly("calls");
    assertThat(findCommands).isEmpty();
    for (int i = 0; i < 10; i++) {
      assertThat(find("calls", "c" + i).getString("status")).isEqualTo("success");
    }
    writes.close();
  }

  /**
   * When some did not match (another status, no document, a plain update of a missing document
   * beside them), one read tells which did; a second conditional update of the same document goes
   * out after the first, so it sees the first one's write: of two moves out of {@code running} only
   * the first is made.
   */
  @Test
  void conditionalUpdatesAreToldApartWhenNotAllMatch() throws Exception {
    insert("calls", "running", new Document("status", "running"));
    insert("calls", "done", new Document("status", "success"));
    insert("calls", "twice", new Document("status", "running"));
    BulkWrites writes = new BulkWrites(mongo, false);
    var running = Filters.eq("status", "running");
    CompletableFuture<Boolean> a =
        writes.queueIfMatches("running", running, Updates.set("status", "success"), "calls");
    CompletableFuture<Boolean> b =
        writes.queueIfMatches("done", running, Updates.set("status", "failed"), "calls");
    CompletableFuture<Boolean> c =
        writes.queueIfMatches("missing", running, Updates.set("status", "failed"), "calls");
    CompletableFuture<Boolean> first =
        writes.queueIfMatches("twice", running, Updates.set("status", "success"), "calls");
    CompletableFuture<Boolean> second =
        writes.queueIfMatches("twice", running, Updates.set("status", "failed"), "calls");
    CompletableFuture<Void> plain =
        writes.queue(Filters.eq("_id", "nowhere"), Updates.set("n", 1), "calls");

    writes.start();

    assertThat(a.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(b.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(c.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(second.get(10, TimeUnit.SECONDS)).isFalse();
    plain.get(10, TimeUnit.SECONDS);
    assertThat(updateCommands).as("the second of twice after the rest").hasSize(2);
    assertThat(findCommands)
        .as("one read for the bulk write that matched some; none for the one that matched none")
        .hasSize(1);
    assertThat(find("calls", "running").getString("status")).isEqualTo("success");
    assertThat(find("calls", "done").getString("status")).isEqualTo("success");
    assertThat(find("calls", "twice").getString("status")).isEqualTo("success");
    assertThat(writes.updateIfMatches("done", running, Updates.set("n", 1), "calls")).isFalse();
    writes.close();
  }

  /**
   * A bulk write that matched nothing says so of each of its conditional updates without a read:
   * the lone update that missed, the common case at low load.
   */
  @Test
  void conditionalUpdatesOfABulkWriteThatMatchedNothingAreToldSoWithoutARead() throws Exception {
    insert("calls", "done", new Document("status", "success"));
    BulkWrites writes = new BulkWrites(mongo, false);
    var running = Filters.eq("status", "running");
    CompletableFuture<Boolean> done =
        writes.queueIfMatches("done", running, Updates.set("status", "failed"), "calls");
    CompletableFuture<Boolean> missing =
        writes.queueIfMatches("missing", running, Updates.set("status", "failed"), "calls");
    CompletableFuture<Void> plain =
        writes.queue(Filters.eq("_id", "nowhere"), Updates.set("n", 1), "calls");

    writes.start();

    assertThat(done.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(missing.get(10, TimeUnit.SECONDS)).isFalse();
    plain.get(10, TimeUnit.SECONDS);
    assertThat(writes.updateIfMatches("done", running, Updates.set("n", 1), "calls")).isFalse();
    assertThat(updateCommands).hasSize(2);
    assertThat(findCommands).isEmpty();
    assertThat(find("calls", "done").getString("status")).isEqualTo("success");
    writes.close();
  }

  private static void insert(String collection, String id, Document fields) {
    Document document = new Document("_id", id);
    document.putAll(fields);
    mongo.getCollection(collection).insertOne(document);
  }

  private static Document find(String collection, String id) {
    return mongo.getCollection(collection).find(Filters.eq("_id", id)).first();
  }

  /**
   * Queued within the linger (a minute here: only close makes them sooner), the updates and deletes
   * of two collections are not made when queue returns, then all of them are, in one bulk write per
   * collection (where a collection has both, one update command and one delete command), each
   * changing only its document.
   */
  @Test
  void updatesAndDeletesQueuedTogetherAreMadeLaterInOneWritePerCollection() {
    heldDocuments();
    try (BulkWrites writes = new BulkWrites(mongo)) {
      LaterUpdates later = new LaterUpdates(writes, "later-test", Duration.ofMinutes(1));
      for (int i = 0; i < 10; i++) {
        later.queue(i % 2 == 0 ? deleteHeld("calls", i) : unsetLease("calls", i), failure -> {});
        later.queue(unsetLease("messages", i), failure -> {});
      }
      assertThat(held("calls")).as("not made yet").isEqualTo(10);

      later.close();

      assertThat(ids("calls")).containsExactlyInAnyOrder("d1", "d3", "d5", "d7", "d9");
      assertThat(held("calls")).isZero();
      assertThat(held("messages")).isZero();
      assertThat(ids("messages")).hasSize(10);
      assertThat(updateCommands).containsExactlyInAnyOrder("calls", "messages");
      assertThat(deleteCommands).containsExactly("calls");
    }
  }

  /**
   * An update the server refuses hands its failure to its own callback; the others of its batch are
   * made, within the linger, and theirs are not called: a delete that matches nothing (its document
   * gone, or held by another) among them, which is no failure, as with {@code deleteOne}.
   */
  @Test
  void aRefusedUpdateTellsItsOwnCallbackAndTheOthersAreMade() {
    heldDocuments();
    Map<String, Throwable> failed = new ConcurrentHashMap<>();
    try (BulkWrites writes = new BulkWrites(mongo)) {
      LaterUpdates later = new LaterUpdates(writes, "later-test", Duration.ofMillis(20));
      later.queue(unsetLease("calls", 0), failure -> failed.put("d0", failure));
      later.queue(
          new BulkWrites.Update(Filters.eq("_id", "d1"), Updates.inc("lease", 1), "calls"),
          failure -> failed.put("d1", failure)); // $inc of a string: refused
      later.queue(unsetLease("calls", 2), failure -> failed.put("d2", failure));
      later.queue(deleteHeld("calls", 3), failure -> failed.put("d3", failure));
      later.queue(
          new BulkWrites.Delete(Filters.eq("_id", "gone"), "calls"),
          failure -> failed.put("gone", failure));
      later.queue(
          new BulkWrites.Delete(
              Filters.and(Filters.eq("_id", "d4"), Filters.eq("lease", "another")), "calls"),
          failure -> failed.put("d4", failure));

      await().atMost(Duration.ofSeconds(10)).until(() -> failed.containsKey("d1"));
      await().atMost(Duration.ofSeconds(10)).until(() -> held("calls") == 7);
      later.close();
    }
    assertThat(failed).containsOnlyKeys("d1");
    assertThat(mongo.findById("d1", Document.class, "calls")).containsEntry("lease", "held");
    assertThat(ids("calls")).as("only d3 deleted").hasSize(9).contains("d4").doesNotContain("d3");
  }

  /**
   * Deletes beside conditional updates in one bulk write leave the updates' count as it is: when
   * every update matched, each is told so without a read, whether the deletes deleted or not.
   */
  @Test
  void deletesBesideConditionalUpdatesThatAllMatchCostNoRead() throws Exception {
    insert("calls", "running", new Document("status", "running"));
    insert("calls", "finished", new Document("status", "success"));
    BulkWrites writes = new BulkWrites(mongo, false);
    CompletableFuture<Boolean> matched =
        writes.queueIfMatches(
            "running", Filters.eq("status", "running"), Updates.set("status", "success"), "calls");
    List<CompletableFuture<Void>> deletes =
        writes.queuePlain(
            List.of(
                new BulkWrites.Delete(Filters.eq("_id", "finished"), "calls"),
                new BulkWrites.Delete(Filters.eq("_id", "gone"), "calls")));

    writes.start();

    assertThat(matched.get(10, TimeUnit.SECONDS)).isTrue();
    for (CompletableFuture<Void> delete : deletes) {
      delete.get(10, TimeUnit.SECONDS);
    }
    assertThat(findCommands).isEmpty();
    assertThat(updateCommands).containsExactly("calls");
    assertThat(deleteCommands).containsExactly("calls");
    assertThat(ids("calls")).containsExactly("running");
    assertThat(find("calls", "running").getString("status")).isEqualTo("success");
    writes.close();
  }

  /** Ten documents with a lease in each of two collections, for {@link LaterUpdates}. */
  private static void heldDocuments() {
    for (String collection : List.of("calls", "messages")) {
      for (int i = 0; i < 10; i++) {
        mongo.insert(new Document("_id", "d" + i).append("lease", "held"), collection);
      }
    }
    updateCommands.clear();
  }

  /** Deletes the document while it is held, as a finished piece of work's document is removed. */
  private static BulkWrites.Delete deleteHeld(String collection, int i) {
    return new BulkWrites.Delete(
        Filters.and(Filters.eq("_id", "d" + i), Filters.eq("lease", "held")), collection);
  }

  private static List<Object> ids(String collection) {
    return mongo.getCollection(collection).find().map(d -> d.get("_id")).into(new ArrayList<>());
  }

  private static BulkWrites.Update unsetLease(String collection, int i) {
    return new BulkWrites.Update(Filters.eq("_id", "d" + i), Updates.unset("lease"), collection);
  }

  private static long held(String collection) {
    return mongo.getCollection(collection).countDocuments(Filters.exists("lease"));
  }
}
