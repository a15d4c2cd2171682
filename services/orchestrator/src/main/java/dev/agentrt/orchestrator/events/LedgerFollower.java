package dev.agentrt.orchestrator.events;

import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Follows one chat's ledger for one client: first what the client missed (everything after the
 * position it names), then new events as they are written, each once and in position order. Both
 * come from the same durable ledger, so the switch from replay to live has no gap and no duplicate.
 *
 * <p>A chat's positions have no gaps: an event is only written right after one that is there
 * ({@link RunLedger}). Ledgers written before that was so may have some (a position taken by a
 * counter whose event was never written): the follower waits for a missing position until it is
 * written or {@code gapGrace} has passed since it saw the gap or since the event after it was
 * written, and then moves past it.
 */
public final class LedgerFollower {

  /** Where the events go; an {@link IOException} means the client is gone. */
  public interface Sink {
    void send(RunEvent event) throws IOException;

    void heartbeat() throws IOException;
  }

  static final int BATCH = 500;

  private final RunLedger ledger;
  private final EventsProperties properties;
  private final Clock clock;
  private final String chatId;
  private long position;
  private @Nullable Instant gapSeen;
  private Instant lastSent;

  public LedgerFollower(
      RunLedger ledger, EventsProperties properties, Clock clock, String chatId, long after) {
    this.ledger = ledger;
    this.properties = properties;
    this.clock = clock;
    this.chatId = chatId;
    this.position = after;
    this.lastSent = clock.instant();
  }

  /** The last position sent (or skipped). */
  long position() {
    return position;
  }

  /**
   * Sends what is new and returns how many events it sent; sends a heartbeat when the stream has
   * been silent for {@code heartbeat}.
   */
  public int poll(Sink sink) throws IOException {
    int sent = 0;
    List<RunEvent> events;
    do {
      events = ledger.after(chatId, position, BATCH);
      int before = sent;
      for (RunEvent event : events) {
        if (event.seq() != position + 1 && !mayPass(event)) {
          break;
        }
        sink.send(event);
        position = event.seq();
        gapSeen = null;
        sent++;
      }
      if (sent == before) {
        break;
      }
    } while (events.size() == BATCH);
    Instant now = clock.instant();
    if (sent > 0) {
      lastSent = now;
    } else if (Duration.between(lastSent, now).compareTo(properties.heartbeat()) >= 0) {
      sink.heartbeat();
      lastSent = now;
    }
    return sent;
  }

  /**
   * Polls until {@code open} turns false or the client goes away, pausing {@code pollInterval}
   * between looks.
   */
  void follow(Sink sink, BooleanSupplier open) throws IOException, InterruptedException {
    while (open.getAsBoolean()) {
      poll(sink);
      Thread.sleep(properties.pollInterval());
    }
  }

  /** Whether to move past the missing positions before this event. */
  private boolean mayPass(RunEvent event) {
    Instant now = clock.instant();
    if (gapSeen == null) {
      gapSeen = now;
    }
    Duration grace = properties.gapGrace();
    return Duration.between(event.at(), now).compareTo(grace) > 0
        || Duration.between(gapSeen, now).compareTo(grace) > 0;
  }
}
