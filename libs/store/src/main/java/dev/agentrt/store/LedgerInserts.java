package dev.agentrt.store;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoBulkWriteException;
import com.mongodb.bulk.BulkWriteError;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.InsertManyOptions;
import dev.agentrt.platform.GroupCommit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Inserts the events of many appends to run-event ledgers, of any chats, together: one ordered
 * {@code insertMany} for all that were queued while the last was in flight ({@link GroupCommit}).
 *
 * <p>Ordered, because an append's events hold consecutive positions and each may be written only
 * once the one before it is: the server stops at the first event it cannot insert, so an append
 * whose event found its position taken has none of its later events written behind it, where they
 * would stand before their predecessor once it is placed again. The appends after it in the batch
 * are not the failing append's business: they go out at once in the next command.
 */
final class LedgerInserts {

  /** What became of an append's events: how many were written, in order, and why the rest not. */
  record Landed(int written, Stop stop, @Nullable RuntimeException failure) {

    static final Landed ALL = new Landed(Integer.MAX_VALUE, Stop.NONE, null);
  }

  /** Why an append's events stopped being written. */
  enum Stop {
    /** All were written. */
    NONE,
    /** The event at {@link Landed#written} is in the ledger already: its step was recorded. */
    RECORDED_BEFORE,
    /** The event at {@link Landed#written} found its position taken by another event. */
    POSITION_TAKEN,
    /** The write failed otherwise ({@link Landed#failure}); some events may have been written. */
    FAILED
  }

  private static final String CHAT = "chatId";

  /** The index the server names when an event's id ({@code chatId/key}) is taken. */
  private static final String ID_INDEX = "_id_";

  private final MongoCollection<Document> events;
  private final GroupCommit<List<Document>, Landed> inserts;

  LedgerInserts(MongoTemplate mongo) {
    this.events = mongo.getCollection(Collections.RUN_EVENTS);
    this.inserts = new GroupCommit<>("ledger-inserts", 500, this::write, true);
  }

  /** Queues an append's events, in position order; the future says how far they got. */
  CompletableFuture<Landed> queue(List<Document> append) {
    return inserts.submit(append);
  }

  /**
   * Sends the appends in order, as one command while none fails; after a failure, the rest in the
   * next. An append of a chat whose first position an append before it in the batch was just
   * written at is not sent: its position is taken.
   */
  private List<Landed> write(List<List<Document>> appends) {
    Landed[] landed = new Landed[appends.size()];
    Map<Object, Long> highest = new HashMap<>(); // per chat, the last position written here
    List<Integer> pending = new ArrayList<>();
    for (int a = 0; a < appends.size(); a++) {
      pending.add(a);
    }
    while (!pending.isEmpty()) {
      List<Document> flat = new ArrayList<>();
      List<Integer> owner = new ArrayList<>();
      for (int a : pending) {
        Document first = appends.get(a).getFirst();
        Long written = highest.get(first.get(CHAT));
        if (written != null && written >= seq(first)) {
          landed[a] = new Landed(0, Stop.POSITION_TAKEN, null);
          continue;
        }
        for (Document event : appends.get(a)) {
          flat.add(event);
          owner.add(a);
        }
      }
      int sent = flat.size();
      try {
        if (!flat.isEmpty()) {
          events.insertMany(flat, new InsertManyOptions().ordered(true));
        }
        pending = List.of();
      } catch (MongoBulkWriteException e) {
        BulkWriteError error = e.getWriteErrors().getFirst();
        sent = error.getIndex();
        int failed = owner.get(sent);
        landed[failed] = new Landed(sent - owner.indexOf(failed), stop(error), failure(error));
        pending =
            owner.subList(sent + 1, owner.size()).stream()
                .distinct()
                .filter(a -> a != failed)
                .toList();
      } catch (RuntimeException e) {
        for (int a : new LinkedHashSet<>(owner)) {
          landed[a] = new Landed(0, Stop.FAILED, e);
        }
        return List.of(landed);
      }
      for (int i = 0; i < sent; i++) {
        Document event = flat.get(i);
        highest.merge(event.get(CHAT), seq(event), Math::max);
        if (landed[owner.get(i)] == null) {
          landed[owner.get(i)] = Landed.ALL;
        }
      }
    }
    return List.of(landed);
  }

  private static long seq(Document event) {
    return ((Number) event.get("seq")).longValue();
  }

  private static Stop stop(BulkWriteError error) {
    if (ErrorCategory.fromErrorCode(error.getCode()) != ErrorCategory.DUPLICATE_KEY) {
      return Stop.FAILED;
    }
    return error.getMessage().contains(" index: " + ID_INDEX)
        ? Stop.RECORDED_BEFORE
        : Stop.POSITION_TAKEN;
  }

  private static @Nullable RuntimeException failure(BulkWriteError error) {
    return ErrorCategory.fromErrorCode(error.getCode()) == ErrorCategory.DUPLICATE_KEY
        ? null
        : new IllegalStateException("run events not written: " + error.getMessage());
  }
}
