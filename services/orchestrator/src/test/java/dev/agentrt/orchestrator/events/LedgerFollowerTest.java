package dev.agentrt.orchestrator.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.orchestrator.testing.SettableClock;
import dev.agentrt.store.Chat;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StoreIndexes;
import dev.agentrt.testing.InMemoryMongo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

/** Replay, then live, each event once in order, over the real ledger on a Mongo-protocol server. */
class LedgerFollowerTest {

  private static final EventsProperties PROPERTIES =
      new EventsProperties(
          Duration.ofMillis(10),
          Duration.ofSeconds(15),
          Duration.ofSeconds(2),
          Duration.ZERO,
          8,
          1000);

  private static InMemoryMongo server;
  private static MongoTemplate mongo;

  private final SettableClock clock = new SettableClock();
  private RunLedger ledger;
  private String chatId;
  private final Recording client = new Recording();

  @BeforeAll
  static void startMongo() {
    server = InMemoryMongo.start();
    mongo = server.template();
    new StoreIndexes(mongo).afterPropertiesSet();
  }

  @AfterAll
  static void stopMongo() {
    server.close();
  }

  @BeforeEach
  void freshChat() {
    ledger = new RunLedger(mongo);
    chatId = mongo.insert(new Chat(Ids.fresh(), "t", Instant.EPOCH)).id();
  }

  @Test
  void replaysWhatTheClientMissedThenSendsNewEventsOnceEach() throws Exception {
    append("a");
    append("b");
    append("c");
    LedgerFollower follower = new LedgerFollower(ledger, PROPERTIES, clock, chatId, 1);

    follower.poll(client);
    follower.poll(client);
    append("d");
    follower.poll(client);
    follower.poll(client);

    assertThat(client.positions).containsExactly(2L, 3L, 4L);
    assertThat(follower.position()).isEqualTo(4);
  }

  @Test
  void waitsForAMissingPositionAndKeepsOrderWhenItArrives() throws Exception {
    append("a");
    write(3, "c", clock.instant()); // position 2 missing, as a ledger written by counter may have
    LedgerFollower follower = new LedgerFollower(ledger, PROPERTIES, clock, chatId, 0);

    follower.poll(client);
    assertThat(client.positions).containsExactly(1L);

    write(2, "b", clock.instant());
    follower.poll(client);
    assertThat(client.positions).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aStepRecordedAgainLeavesNoGapToWaitFor() throws Exception {
    append("a");
    append("b");
    append("a"); // the same step again: stores nothing, takes no position
    append("c");
    LedgerFollower follower = new LedgerFollower(ledger, PROPERTIES, clock, chatId, 0);

    follower.poll(client);

    assertThat(client.positions).containsExactly(1L, 2L, 3L);
  }

  @Test
  void movesPastAPositionThatNeverFillsOnceTheGraceHasPassed() throws Exception {
    append("a");
    write(3, "c", clock.instant());
    LedgerFollower follower = new LedgerFollower(ledger, PROPERTIES, clock, chatId, 0);
    follower.poll(client);

    clock.advance(PROPERTIES.gapGrace().plusMillis(1));
    follower.poll(client);

    assertThat(client.positions).containsExactly(1L, 3L);
  }

  @Test
  void anOldGapInTheLedgerDoesNotHoldUpAReplay() throws Exception {
    append("a");
    write(3, "c", clock.instant().minus(Duration.ofMinutes(1)));
    LedgerFollower follower = new LedgerFollower(ledger, PROPERTIES, clock, chatId, 0);

    follower.poll(client);

    assertThat(client.positions).containsExactly(1L, 3L);
  }

  @Test
  void sendsAHeartbeatAfterASilenceAndNotBefore() throws Exception {
    LedgerFollower follower = new LedgerFollower(ledger, PROPERTIES, clock, chatId, 0);

    follower.poll(client);
    clock.advance(PROPERTIES.heartbeat());
    follower.poll(client);
    follower.poll(client);

    assertThat(client.heartbeats).isEqualTo(1);
  }

  @Test
  void replaysMoreThanOneBatch() throws Exception {
    for (int i = 0; i < LedgerFollower.BATCH + 3; i++) {
      append("e" + i);
    }
    LedgerFollower follower = new LedgerFollower(ledger, PROPERTIES, clock, chatId, 0);

    assertThat(follower.poll(client)).isEqualTo(LedgerFollower.BATCH + 3);
  }

  private void append(String key) {
    ledger.append(chatId, key, RunEvent.STEP_START, null, null, null, RunLedger.data());
  }

  /** An event written straight at a position, as a writer that took it earlier would. */
  private void write(long seq, String key, Instant at) {
    mongo.insert(
        new RunEvent(
            chatId + "/" + key, chatId, seq, RunEvent.STEP_END, at, null, null, null, Map.of()));
  }

  private static final class Recording implements LedgerFollower.Sink {
    final List<Long> positions = new ArrayList<>();
    int heartbeats;

    @Override
    public void send(RunEvent event) {
      positions.add(event.seq());
    }

    @Override
    public void heartbeat() {
      heartbeats++;
    }
  }
}
