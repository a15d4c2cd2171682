package dev.agentrt.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.result.UpdateResult;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.platform.BulkWrites;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.annotation.Id;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.data.mongodb.core.query.UpdateDefinition;

/** The lease primitive on a real MongoDB-protocol server, with two instances racing for work. */
class LeasesTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  private static MongoServer server;
  private static MongoClient client;
  private static MongoTemplate mongo;

  private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();

  /** A document holding work, as a sub-agent holds its turn. */
  @org.springframework.data.mongodb.core.mapping.Document("lease_tests")
  record Work(@Id String id, String status) {}

  @BeforeAll
  static void start() {
    server = new MongoServer(new MemoryBackend());
    client = MongoClients.create("mongodb://127.0.0.1:" + server.bind().getPort());
    mongo = new MongoTemplate(client, "agentrt");
  }

  @AfterAll
  static void stop() {
    client.close();
    server.shutdownNow();
  }

  @BeforeEach
  void clear() {
    mongo.remove(new Query(), Work.class);
  }

  @AfterEach
  void stopWorkers() {
    workers.shutdownNow();
  }

  private static Leases leases(Duration duration) {
    return new Leases(mongo, Work.class, "lease", duration, Criteria.where("status").is("active"));
  }

  private static String work() {
    return mongo.insert(new Work(Ids.fresh(), "active")).id();
  }

  private static Instant leaseUntil(String id) {
    Document lease = mongo.findById(id, Document.class, "lease_tests").get("lease", Document.class);
    return lease.getDate("leaseUntil").toInstant();
  }

  @Test
  void onlyOneInstanceTakesTheWorkUntilItsLeasePasses() {
    String id = work();
    Leases first = leases(Duration.ofMillis(300));
    Leases second = leases(LONG);

    assertThat(first.take(id, new Criteria(), new Update())).isTrue();
    assertThat(first.take(id, new Criteria(), new Update())).isFalse(); // held here already
    assertThat(second.take(id, new Criteria(), new Update())).isFalse();
    assertThat(second.holds(id)).isFalse();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> second.take(id, new Criteria(), new Update()));
    assertThat(second.holds(id)).isTrue();
    assertThat(mongo.findById(id, Document.class, "lease_tests").get("lease", Document.class))
        .containsEntry("holder", second.holder());
  }

  /**
   * Takes that go out with other writes ({@link BulkWrites}), two instances racing at a barrier for
   * the same twenty documents: each is taken by exactly one, the one its document names, and a take
   * whose condition fails takes nothing.
   */
  @Test
  void takesThroughTheBulkWriterGiveEachDocumentToExactlyOneInstance() throws Exception {
    List<String> ids = IntStream.range(0, 20).mapToObj(i -> work()).toList();
    try (BulkWrites mine = new BulkWrites(mongo);
        BulkWrites theirs = new BulkWrites(mongo)) {
      Leases me = new Leases(mongo, mine, Work.class, "lease", LONG, null);
      Leases them = new Leases(mongo, theirs, Work.class, "lease", LONG, null);
      CyclicBarrier start = new CyclicBarrier(40);
      List<Future<Boolean>> takes = new ArrayList<>();
      for (String id : ids) {
        for (Leases instance : List.of(me, them)) {
          takes.add(
              workers.submit(
                  () -> {
                    start.await();
                    return instance.take(id, Criteria.where("status").is("active"), new Update());
                  }));
        }
      }
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        boolean toMe = takes.get(2 * i).get(10, TimeUnit.SECONDS);
        boolean toThem = takes.get(2 * i + 1).get(10, TimeUnit.SECONDS);
        assertThat(toMe).as(id).isNotEqualTo(toThem);
        assertThat(me.holds(id)).isEqualTo(toMe);
        assertThat(them.holds(id)).isEqualTo(toThem);
        assertThat(mongo.findById(id, Document.class, "lease_tests").get("lease", Document.class))
            .containsEntry("holder", (toMe ? me : them).holder());
      }
      String done = mongo.insert(new Work(Ids.fresh(), "done")).id();
      assertThat(me.take(done, Criteria.where("status").is("active"), new Update())).isFalse();
      assertThat(me.holds(done)).isFalse();
    }
  }

  @Test
  void aTakeSetsItsUpdateAndRespectsItsCondition() {
    String id = work();
    Leases leases = leases(LONG);

    assertThat(leases.take(id, Criteria.where("status").is("done"), new Update())).isFalse();
    assertThat(leases.holds(id)).isFalse();
    Work taken =
        leases
            .takeAndGet(
                id,
                Criteria.where("status").is("active"),
                new Update().set("status", "busy"),
                Work.class)
            .orElseThrow();
    assertThat(taken.status()).isEqualTo("busy");
    assertThat(leases.holds(id)).isTrue();
  }

  @Test
  void renewalExtendsOnlyThisInstancesHolds() {
    String mine = work();
    String theirs = work();
    Leases me = leases(LONG);
    Leases them = leases(LONG);
    me.take(mine, new Criteria(), new Update());
    them.take(theirs, new Criteria(), new Update());
    mongo.updateMulti(
        new Query(),
        new Update().set("lease.leaseUntil", Instant.parse("2030-01-01T00:00:00Z")),
        Work.class);

    assertThat(me.renew()).isEmpty();

    assertThat(leaseUntil(mine)).isBefore(Instant.parse("2030-01-01T00:00:00Z"));
    assertThat(leaseUntil(theirs)).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
  }

  @Test
  void aHoldNoLongerWantedIsLostAtTheNextRenewalAndItsWorkerInterrupted() throws Exception {
    String cancelled = work();
    String going = work();
    Leases leases = leases(LONG);
    CountDownLatch running = new CountDownLatch(2);
    CountDownLatch interrupted = new CountDownLatch(1);
    AtomicInteger interruptions = new AtomicInteger();
    for (String id : List.of(cancelled, going)) {
      leases.take(id, new Criteria(), new Update());
      leases.run(id, workers, blockUntilInterrupted(running, interrupted, interruptions));
    }
    running.await();
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(cancelled)),
        new Update().set("status", "cancelled"),
        Work.class);

    assertThat(leases.renew()).containsExactly(cancelled);

    interrupted.await();
    assertThat(leases.heldIds()).containsExactly(going);
    assertThat(interruptions).hasValue(1);
  }

  @Test
  void aRenewalWhileATakeIsBeingWrittenKeepsTheHoldTheTakeGets() throws Exception {
    String id = work();
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch renewed = new CountDownLatch(1);
    // The same server; only the take's write waits until a renewal has run.
    MongoTemplate slowTakes =
        new MongoTemplate(client, "agentrt") {
          @Override
          public UpdateResult updateFirst(
              Query query, UpdateDefinition update, String collectionName) {
            writing.countDown();
            try {
              renewed.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return super.updateFirst(query, update, collectionName);
          }
        };
    Leases leases =
        new Leases(slowTakes, Work.class, "lease", LONG, Criteria.where("status").is("active"));
    Future<Boolean> take = workers.submit(() -> leases.take(id, new Criteria(), new Update()));
    assertThat(writing.await(10, TimeUnit.SECONDS)).as("the take's write started").isTrue();

    assertThat(leases.renew()).isEmpty();
    renewed.countDown();

    assertThat(take.get()).isTrue();
    assertThat(leases.holds(id)).isTrue();
    CountDownLatch ran = new CountDownLatch(1);
    leases.run(id, workers, ran::countDown);
    ran.await();
    assertThat(leases.renew()).isEmpty();
    assertThat(leases.heldIds()).containsExactly(id);
  }

  @Test
  void aHoldTakenByAnotherInstanceIsLostHere() throws Exception {
    String id = work();
    Leases paused = leases(LONG);
    paused.take(id, new Criteria(), new Update());
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    paused.run(id, workers, blockUntilInterrupted(running, interrupted, new AtomicInteger()));
    running.await();
    mongo.updateFirst( // its lease passed while it paused
        Query.query(Criteria.where("_id").is(id)),
        new Update().set("lease.leaseUntil", Instant.EPOCH),
        Work.class);
    Leases other = leases(LONG);
    assertThat(other.take(id, new Criteria(), new Update())).isTrue();

    assertThat(paused.renew()).containsExactly(id);
    interrupted.await();
    assertThat(paused.done(id).getQueryObject()).isNotNull();
    assertThat(
            mongo
                .updateFirst(paused.done(id), new Update().unset("lease"), Work.class)
                .getMatchedCount())
        .as("a worker that lost its hold cannot end the other's")
        .isZero();
  }

  @Test
  void interruptStopsTheWorkerOfAHoldAndNothingElse() throws Exception {
    String id = work();
    Leases leases = leases(LONG);
    assertThat(leases.interrupt(id)).isFalse(); // not held
    leases.take(id, new Criteria(), new Update());
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    leases.run(id, workers, blockUntilInterrupted(running, interrupted, new AtomicInteger()));
    running.await();

    assertThat(leases.interrupt(id)).isTrue();
    interrupted.await();
  }

  @Test
  void doneEndsTheHoldAndReleaseLetsAnyoneTakeTheWorkAtOnce() {
    String finished = work();
    String letGo = work();
    Leases me = leases(LONG);
    me.take(finished, new Criteria(), new Update());
    me.take(letGo, new Criteria(), new Update());

    assertThat(
            mongo
                .updateFirst(me.done(finished), new Update().unset("lease"), Work.class)
                .getMatchedCount())
        .isEqualTo(1);
    me.release(letGo);

    assertThat(me.heldIds()).isEmpty();
    assertThat(me.renew()).isEmpty();
    Leases other = leases(LONG);
    assertThat(mongo.find(Query.query(other.expired()), Work.class))
        .extracting(Work::id)
        .containsExactly(letGo);
    assertThat(other.take(letGo, new Criteria(), new Update())).isTrue();
  }

  /**
   * The end of a hold that asks whether the document is as the worker left it, through the bulk
   * writer and without: it ends only a hold of this instance whose document still matches.
   */
  @Test
  void anEndIfUnchangedEndsOnlyAnUnchangedHoldOfThisInstance() {
    try (BulkWrites writes = new BulkWrites(mongo)) {
      for (Leases me :
          List.of(leases(LONG), new Leases(mongo, writes, Work.class, "lease", LONG, null))) {
        String unchanged = work();
        String changed = work();
        String elsewhere = work();
        me.take(unchanged, new Criteria(), new Update());
        me.take(changed, new Criteria(), new Update());
        leases(LONG).take(elsewhere, new Criteria(), new Update());
        mongo.updateFirst(
            Query.query(Criteria.where("_id").is(changed)),
            new Update().set("status", "stopped"),
            Work.class);
        Criteria active = Criteria.where("status").is("active");
        me.done(unchanged);
        me.done(changed);

        assertThat(me.endIfUnchanged(unchanged, active, new Update().unset("lease"))).isTrue();
        assertThat(me.endIfUnchanged(changed, active, new Update().unset("lease"))).isFalse();
        assertThat(me.endIfUnchanged(elsewhere, active, new Update().unset("lease"))).isFalse();
        assertThat(mongo.findById(unchanged, Document.class, "lease_tests"))
            .doesNotContainKey("lease");
        assertThat(mongo.findById(changed, Document.class, "lease_tests")).containsKey("lease");
        assertThat(mongo.findById(elsewhere, Document.class, "lease_tests")).containsKey("lease");
      }
    }
  }

  @Test
  void takeOrInsertRecordsNewWorkOnceAndTakesItAgainOnlyWhenFree() {
    Leases first = leases(LONG);
    Leases second = leases(LONG);
    Update onInsert = new Update().setOnInsert("status", "active");

    assertThat(first.takeOrInsert("answer-1", onInsert)).isTrue();
    assertThat(second.takeOrInsert("answer-1", new Update().setOnInsert("status", "other")))
        .isFalse();
    first.release("answer-1");
    assertThat(second.takeOrInsert("answer-1", new Update().setOnInsert("status", "other")))
        .isTrue();

    assertThat(mongo.findById("answer-1", Work.class).status()).isEqualTo("active");
    assertThat(second.holds("answer-1")).isTrue();
  }

  @Test
  void takeAnyTakesEachFreeDocumentOnce() {
    String a = work();
    String b = work();
    Leases holder = leases(LONG);
    holder.take(a, new Criteria(), new Update());
    Leases sweeper = leases(LONG);

    List<String> taken = new ArrayList<>();
    while (true) {
      var next = sweeper.takeAny(Criteria.where("status").is("active"), new Update(), Work.class);
      if (next.isEmpty()) {
        break;
      }
      taken.add(next.get().id());
    }

    assertThat(taken).containsExactly(b);
    assertThat(sweeper.heldIds()).containsExactly(b);
  }

  @Test
  void theSweeperRenewsEveryKindThenSweepsEachEvenWhenOneFails() {
    String id = work();
    Leases leases = leases(LONG);
    leases.take(id, new Criteria(), new Update());
    mongo.updateMulti(
        new Query(),
        new Update().set("lease.leaseUntil", Instant.EPOCH.plusSeconds(1)),
        Work.class);
    List<String> swept = new ArrayList<>();
    LeasedWork failing =
        new LeasedWork() {
          public Leases leases() {
            throw new IllegalStateException("database down");
          }

          public void sweep() {
            throw new IllegalStateException("database down");
          }
        };
    LeasedWork working =
        new LeasedWork() {
          public Leases leases() {
            return leases;
          }

          public void sweep() {
            swept.add("swept after renewal: " + leaseUntil(id).isAfter(Instant.now()));
          }
        };

    new LeaseSweeper(List.of(failing, working), new LeaseProperties(LONG, Duration.ofSeconds(1)))
        .sweep();

    assertThat(swept).containsExactly("swept after renewal: true");
  }

  @Test
  void aRenewalIntervalNotShorterThanTheLeaseIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new LeaseProperties(Duration.ofSeconds(5), Duration.ofSeconds(5)))
        .hasMessageContaining("must be shorter");
  }

  private static Runnable blockUntilInterrupted(
      CountDownLatch running, CountDownLatch interrupted, AtomicInteger interruptions) {
    return () -> {
      running.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        interruptions.incrementAndGet();
        interrupted.countDown();
      }
    };
  }
}
