package dev.agentrt.localstack.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The indexes change how documents are found, never which: the same random writes applied to the
 * library's plain H2 backend and to the indexing one, then the same queries asked of both, must
 * give the same answers — with an H2 file reopened (indexes rebuilt from what is stored) as well.
 */
class IndexingH2BackendTest {

  private static final List<String> STATUSES = List.of("pending", "running", "success", "failed");
  private static final int OWNERS = 7;

  @Test
  void answersEveryQueryLikeTheLibrarysOwnBackend() {
    try (Server plain = new Server(new H2Backend((String) null));
        Server indexed = new Server(new IndexingH2Backend(null))) {
      Random random = new Random(42);
      for (int step = 0; step < 1_500; step++) {
        Function<MongoCollection<Document>, Object> write = randomWrite(random, step);
        assertThat(write.apply(indexed.calls())).isEqualTo(write.apply(plain.calls()));
        if (step % 50 == 49) {
          assertSameAnswers(plain, indexed, random);
        }
      }
    }
  }

  @Test
  void rebuildsItsIndexesFromAStoredFile(@TempDir Path dir) {
    String file = dir.resolve("indexed.mv").toString();
    Random random = new Random(7);
    List<Function<MongoCollection<Document>, Object>> writes = new ArrayList<>();
    for (int step = 0; step < 400; step++) {
      writes.add(randomWrite(random, step));
    }
    try (Server indexed = new Server(new IndexingH2Backend(file))) {
      writes.forEach(write -> write.apply(indexed.calls()));
    }
    try (Server plain = new Server(new H2Backend((String) null));
        Server reopened = new Server(new IndexingH2Backend(file))) {
      writes.forEach(write -> write.apply(plain.calls()));
      assertSameAnswers(plain, reopened, new Random(3));
      // and the rebuilt indexes keep following writes
      for (int step = 400; step < 600; step++) {
        Function<MongoCollection<Document>, Object> write = randomWrite(random, step);
        write.apply(plain.calls());
        write.apply(reopened.calls());
      }
      assertSameAnswers(plain, reopened, new Random(4));
    }
  }

  @Test
  void keepsUniqueKeysUniqueAcrossReopening(@TempDir Path dir) {
    String file = dir.resolve("unique.mv").toString();
    Document first = new Document("_id", "m-1").append("subAgentId", "a").append("seq", 1);
    try (Server indexed = new Server(new IndexingH2Backend(file))) {
      indexed.calls().insertOne(first);
      assertThatThrownBy(() -> indexed.calls().insertOne(new Document(first).append("_id", "m-2")))
          .isInstanceOf(MongoWriteException.class)
          .hasMessageContaining("E11000");
    }
    try (Server reopened = new Server(new IndexingH2Backend(file))) {
      assertThatThrownBy(() -> reopened.calls().insertOne(new Document("_id", "m-1")))
          .hasMessageContaining("E11000");
      assertThatThrownBy(() -> reopened.calls().insertOne(new Document(first).append("_id", "m-3")))
          .hasMessageContaining("E11000");
      reopened.calls().insertOne(new Document(first).append("_id", "m-4").append("seq", 2));
      assertThat(
              ids(
                  reopened
                      .calls()
                      .find(Filters.eq("subAgentId", "a"))
                      .sort(Sorts.ascending("seq"))))
          .containsExactly("m-1", "m-4");
    }
  }

  @Test
  void narrowsToTheDocumentsWithTheValue() {
    FieldIndex status = new FieldIndex("status");
    FieldIndex lease = new FieldIndex("turn.leaseUntil");
    FieldIndex outbox = new FieldIndex("outbox.occurredAt");
    for (int i = 0; i < 10; i++) {
      de.bwaldvogel.mongo.bson.Document document =
          new de.bwaldvogel.mongo.bson.Document("_id", "d-" + i)
              .append("status", i < 2 ? "pending" : "success")
              .append(
                  "outbox",
                  i == 3
                      ? List.of(new de.bwaldvogel.mongo.bson.Document("occurredAt", new Date()))
                      : List.of());
      if (i == 5) {
        document.append("turn", new de.bwaldvogel.mongo.bson.Document("leaseUntil", new Date()));
      }
      status.add("d-" + i, document);
      lease.add("d-" + i, document);
      outbox.add("d-" + i, document);
    }

    int any = Integer.MAX_VALUE;
    assertThat(status.candidates("pending", any)).containsExactly("d-0", "d-1");
    assertThat(status.candidates(new de.bwaldvogel.mongo.bson.Document("$in", List.of("x")), any))
        .isEmpty();
    assertThat(lease.candidates(new de.bwaldvogel.mongo.bson.Document("$lt", new Date()), any))
        .containsExactly("d-5");
    assertThat(outbox.candidates(new de.bwaldvogel.mongo.bson.Document("$lt", new Date()), any))
        .containsExactly("d-3");
    assertThat(status.candidates(null, any)).isNull();
    assertThat(status.candidates(new de.bwaldvogel.mongo.bson.Document("$ne", "pending"), any))
        .isNull();
    // no narrower than what the caller has (one document by its _id, say): not built at all
    de.bwaldvogel.mongo.bson.Document finished =
        new de.bwaldvogel.mongo.bson.Document("$in", List.of("success", "failed"));
    assertThat(status.candidates(finished, 1)).isNull();
    assertThat(status.candidates(finished, any)).hasSize(8);
    assertThat(status.candidates("success", 8)).isNull();
  }

  @Test
  void narrowsByEachClauseOfAnAnd() {
    IndexingH2Backend backend = new IndexingH2Backend(null);
    try (Server indexed = new Server(backend)) {
      for (int i = 0; i < 20; i++) {
        indexed
            .calls()
            .insertOne(
                new Document("_id", "c-" + i)
                    .append("subAgentId", "agent-" + i % 4)
                    .append("seq", i)
                    .append("status", "pending"));
      }
      IndexedH2Collection calls =
          (IndexedH2Collection) backend.resolveDatabase("agentrt").resolveCollection("calls", true);
      de.bwaldvogel.mongo.bson.Document lease =
          new de.bwaldvogel.mongo.bson.Document(
              "$or",
              List.of(
                  new de.bwaldvogel.mongo.bson.Document("leaseUntil", null),
                  new de.bwaldvogel.mongo.bson.Document(
                      "leaseUntil", new de.bwaldvogel.mongo.bson.Document("$lt", new Date()))));

      // a claim as Spring Data writes it: every condition in a clause of its own
      assertThat(
              calls.candidates(
                  new de.bwaldvogel.mongo.bson.Document(
                      "$and",
                      List.of(
                          new de.bwaldvogel.mongo.bson.Document("_id", "c-3"),
                          new de.bwaldvogel.mongo.bson.Document("status", "pending"),
                          lease))))
          .containsExactly("c-3");
      // an $and within an $and, beside a condition of its own
      assertThat(
              calls.candidates(
                  new de.bwaldvogel.mongo.bson.Document("status", "pending")
                      .append(
                          "$and",
                          List.of(
                              new de.bwaldvogel.mongo.bson.Document(
                                  "$and",
                                  List.of(
                                      new de.bwaldvogel.mongo.bson.Document(
                                          "subAgentId", "agent-1")))))))
          .containsExactlyInAnyOrder("c-1", "c-5", "c-9", "c-13", "c-17");
      // an $or narrows nothing: either branch may match
      assertThat(calls.candidates(lease)).isNull();
    }
  }

  /** One random write, the same on every server it is applied to; returns what the write said. */
  private static Function<MongoCollection<Document>, Object> randomWrite(Random random, int step) {
    String id = "call-" + random.nextInt(120);
    String owner = "agent-" + random.nextInt(OWNERS);
    String status = STATUSES.get(random.nextInt(STATUSES.size()));
    Date at = new Date(1_000_000L + random.nextInt(1_000) * 1000L);
    int kind = random.nextInt(8);
    return calls ->
        switch (kind) {
          case 0, 1 -> {
            Document call =
                new Document("_id", id + "-" + step)
                    .append("subAgentId", owner)
                    .append("seq", step)
                    .append("status", status)
                    .append("createdAt", at)
                    .append(
                        "outbox",
                        step % 3 == 0
                            ? List.of(new Document("eventId", "e-" + step).append("occurredAt", at))
                            : List.of());
            calls.insertOne(call);
            yield call.get("_id");
          }
          case 2 ->
              calls
                  .updateOne(
                      Filters.and(Filters.eq("subAgentId", owner), Filters.eq("status", "pending")),
                      Updates.combine(
                          Updates.set("status", "running"), Updates.set("leaseUntil", at)))
                  .getModifiedCount();
          case 3 ->
              String.valueOf(
                  calls.findOneAndUpdate(
                      Filters.and(Filters.eq("status", "running"), Filters.lt("leaseUntil", at)),
                      Updates.combine(Updates.set("status", status), Updates.unset("leaseUntil"))));
          case 4 ->
              calls
                  .updateMany(
                      Filters.lt("outbox.occurredAt", at),
                      Updates.pull("outbox", new Document("occurredAt", new Document("$lt", at))))
                  .getModifiedCount();
          case 5 ->
              calls
                  .updateMany(
                      Filters.eq("subAgentId", owner),
                      Updates.push(
                          "outbox", new Document("eventId", "p-" + step).append("occurredAt", at)))
                  .getModifiedCount();
          case 6 -> calls.deleteMany(Filters.eq("status", status)).getDeletedCount() > 3 ? 1 : 0;
          default ->
              calls
                  .updateOne(
                      Filters.and(Filters.regex("_id", "^" + id), Filters.eq("status", status)),
                      Updates.set("subAgentId", owner))
                  .getModifiedCount();
        };
  }

  private static void assertSameAnswers(Server plain, Server indexed, Random random) {
    String owner = "agent-" + random.nextInt(OWNERS);
    String status = STATUSES.get(random.nextInt(STATUSES.size()));
    Date at = new Date(1_000_000L + random.nextInt(1_000) * 1000L);
    List<Bson> filters =
        List.of(
            Filters.eq("subAgentId", owner),
            Filters.eq("status", status),
            Filters.in("status", List.of(status, "failed")),
            Filters.and(Filters.eq("subAgentId", owner), Filters.eq("status", status)),
            Filters.and(Filters.eq("_id", "call-1-1"), Filters.eq("status", status)),
            Filters.and(
                Filters.eq("_id", "call-1-1"),
                Filters.or(Filters.eq("leaseUntil", null), Filters.lt("leaseUntil", at))),
            Filters.and(
                Filters.and(Filters.eq("subAgentId", owner), Filters.gt("seq", 200)),
                Filters.ne("status", status)),
            Filters.and(Filters.eq("subAgentId", owner), Filters.gt("seq", 200)),
            Filters.lt("outbox.occurredAt", at),
            Filters.and(Filters.eq("status", "running"), Filters.lt("leaseUntil", at)),
            Filters.or(Filters.eq("leaseUntil", null), Filters.lt("leaseUntil", at)),
            Filters.eq("leaseUntil", null),
            Filters.exists("leaseUntil"),
            Filters.ne("status", status),
            Filters.nin("status", List.of(status)),
            Filters.size("outbox", 0),
            Filters.regex("subAgentId", "agent-[12]"));
    for (Bson filter : filters) {
      assertThat(ids(indexed.calls().find(filter).sort(Sorts.ascending("_id"))))
          .as("%s", filter)
          .isEqualTo(ids(plain.calls().find(filter).sort(Sorts.ascending("_id"))));
      assertThat(indexed.calls().countDocuments(filter))
          .isEqualTo(plain.calls().countDocuments(filter));
    }
    // sorted by another key, skipped and limited
    Bson byOwner = Filters.eq("subAgentId", owner);
    assertThat(ids(indexed.calls().find(byOwner).sort(Sorts.descending("seq")).skip(1).limit(3)))
        .isEqualTo(ids(plain.calls().find(byOwner).sort(Sorts.descending("seq")).skip(1).limit(3)));
  }

  private static List<Object> ids(Iterable<Document> documents) {
    List<Object> ids = new ArrayList<>();
    documents.forEach(d -> ids.add(d.get("_id")));
    return ids;
  }

  /** A server on a free port, with the indexes the project's store creates for such documents. */
  private static final class Server implements AutoCloseable {

    private final MongoServer server;
    private final MongoClient client;

    Server(H2Backend backend) {
      server = new MongoServer(backend);
      client = MongoClients.create("mongodb://127.0.0.1:" + server.bind().getPort());
      calls().createIndex(Indexes.ascending("subAgentId", "seq"), new IndexOptions().unique(true));
      calls().createIndex(Indexes.ascending("status", "createdAt"));
      calls().createIndex(Indexes.ascending("leaseUntil"));
      calls().createIndex(Indexes.ascending("outbox.occurredAt"));
    }

    MongoCollection<Document> calls() {
      return client.getDatabase("agentrt").getCollection("calls");
    }

    @Override
    public void close() {
      client.close();
      server.shutdownNow();
    }
  }
}
