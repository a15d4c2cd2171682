package dev.agentrt.store;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.bulk.BulkWriteError;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.PushOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.GroupCommit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Takes positions in chats' run-event ledgers: a take of {@code n} adds {@code n} to the chat's
 * counter ({@link RunLedger#SEQ_FIELD}) and gets the {@code n} positions it passed over, whoever
 * else takes positions in the same chat meanwhile.
 *
 * <p>The takes of many callers go out together ({@link GroupCommit}), those of one chat as one take
 * of their sum: one chat's as one {@code findAndModify}; several chats', as one unordered bulk
 * write and one {@code find} of the chats. Each take also appends a token of its own and its count
 * to the chat's last takes ({@link #TAKES_FIELD}, the newest {@link #KEPT} of them, in the order
 * they were made). The chat as read back then says where each take landed: its last position is the
 * counter less the counts of the takes made after it. A take whose token the chat no longer keeps
 * (more than {@link #KEPT} takes of the same chat between the write and the read) is taken again
 * alone; the positions it took first stay unused, and a reader waits out its grace for them (see
 * the orchestrator's event stream).
 *
 * <p>A take may also add amounts to counters of the chat (its usage: {@link UsageCounter#counts})
 * in the same write, rather than a write of their own to the same document.
 */
final class LedgerPositions {

  /** The field of a chat that keeps its last takes: {@code [{t: token, n: count}, …]}. */
  static final String TAKES_FIELD = "eventSeqTakes";

  /** How many takes a chat keeps. */
  static final int KEPT = 8;

  private static final Bson READ_BACK = Projections.include(RunLedger.SEQ_FIELD, TAKES_FIELD);

  /**
   * What a caller asks for: {@code count} positions in the chat's ledger, and amounts to add to the
   * chat's counters in the same write ({@code path → amount}).
   */
  private record Request(String chatId, int count, Map<String, Long> counts) {}

  /**
   * A take as written: the requests of one chat in a batch, their sum under a token of its own,
   * with their counts summed.
   */
  record Take(String chatId, int count, ObjectId token, Map<String, Long> counts) {}

  /** Where a take landed: its first position, 0 for no such chat; or why it is not known. */
  record Taken(long first, @Nullable RuntimeException failure) {}

  private final MongoCollection<Document> chats;
  private final int kept;
  private final GroupCommit<Request, Taken> takes;

  LedgerPositions(MongoTemplate mongo) {
    this(mongo, KEPT, true);
  }

  /**
   * Positions whose chats keep {@code kept} takes, taken by a writer that waits for {@link #start}
   * when {@code start} is false (tests queue first).
   */
  LedgerPositions(MongoTemplate mongo, int kept, boolean start) {
    this.chats = mongo.getCollection(Collections.CHATS);
    this.kept = kept;
    this.takes = new GroupCommit<>("ledger-positions", 500, this::write, start);
  }

  void start() {
    takes.start();
  }

  /**
   * Takes {@code count} consecutive positions in the chat's ledger, and adds {@code counts} ({@code
   * path → amount}) to the chat's counters in the write that takes them: once, when the take is
   * made (a take made again, its first positions forgotten, adds nothing); not at all when there is
   * no such chat or the write failed; perhaps, when it is not known whether the write was made.
   *
   * @return the first of them; empty when there is no such chat
   * @throws RuntimeException why none was taken, or it is not known which (no answer within {@link
   *     BulkWrites#TIMEOUT})
   */
  OptionalLong take(String chatId, int count, Map<String, Long> counts) {
    return BulkWrites.await(queue(chatId, count, counts));
  }

  /** Queues the take of {@link #take}; the future fails as {@link #take} throws. */
  CompletableFuture<OptionalLong> queue(String chatId, int count, Map<String, Long> counts) {
    if (count < 1) {
      throw new IllegalArgumentException("a take is of one position at least: " + count);
    }
    return takes
        .submit(new Request(chatId, count, counts))
        .thenCompose(
            taken ->
                taken.failure() != null
                    ? CompletableFuture.failedFuture(taken.failure())
                    : CompletableFuture.completedFuture(
                        taken.first() == 0
                            ? OptionalLong.empty()
                            : OptionalLong.of(taken.first())));
  }

  /**
   * The batch's requests of each chat become one take of their sum, split again in their order; one
   * chat's alone, several chats' in one bulk write and one read.
   */
  private List<Taken> write(List<Request> batch) {
    Map<String, List<Integer>> byChat = new LinkedHashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      byChat.computeIfAbsent(batch.get(i).chatId(), c -> new ArrayList<>()).add(i);
    }
    List<Take> merged = new ArrayList<>(byChat.size());
    byChat.forEach(
        (chatId, requests) -> {
          Map<String, Long> counts = new LinkedHashMap<>();
          for (int i : requests) {
            batch.get(i).counts().forEach((path, amount) -> counts.merge(path, amount, Long::sum));
          }
          merged.add(
              new Take(
                  chatId,
                  requests.stream().mapToInt(i -> batch.get(i).count()).sum(),
                  new ObjectId(),
                  counts));
        });
    List<Taken> landed = merged.size() == 1 ? List.of(alone(merged.getFirst())) : together(merged);
    Taken[] taken = new Taken[batch.size()];
    int chat = 0;
    for (List<Integer> requests : byChat.values()) {
      Taken whole = landed.get(chat++);
      long next = whole.first();
      for (int i : requests) {
        if (whole.failure() != null || whole.first() == 0) {
          taken[i] = whole; // why none was taken, or no such chat: the same for each
        } else {
          taken[i] = new Taken(next, null);
          next += batch.get(i).count();
        }
      }
    }
    return List.of(taken);
  }

  /** Takes of different chats, one each: one bulk write, one read of the chats. */
  private List<Taken> together(List<Take> takes) {
    Taken[] taken = new Taken[takes.size()];
    List<UpdateOneModel<Document>> models = new ArrayList<>(takes.size());
    for (Take take : takes) {
      models.add(new UpdateOneModel<>(Filters.eq("_id", take.chatId()), update(take)));
    }
    try {
      chats.bulkWrite(models, new BulkWriteOptions().ordered(false));
    } catch (MongoBulkWriteException e) {
      for (BulkWriteError error : e.getWriteErrors()) {
        taken[error.getIndex()] =
            new Taken(0, new IllegalStateException("ledger positions: " + error.getMessage()));
      }
    }
    Map<Object, Document> read = new HashMap<>();
    chats
        .find(Filters.in("_id", takes.stream().map(Take::chatId).toList()))
        .projection(READ_BACK)
        .forEach(chat -> read.put(chat.get("_id"), chat));
    for (int i = 0; i < takes.size(); i++) {
      if (taken[i] == null) {
        Take take = takes.get(i);
        Document chat = read.get(take.chatId());
        taken[i] = chat == null ? new Taken(0, null) : landed(take, chat);
        if (taken[i] == null) { // forgotten: taken again, its first positions left unused
          taken[i] = alone(new Take(take.chatId(), take.count(), new ObjectId(), Map.of()));
        }
      }
    }
    return List.of(taken);
  }

  /** One take on its own: its write returns the chat, where it is the newest take. */
  private Taken alone(Take take) {
    Document chat =
        chats.findOneAndUpdate(
            Filters.eq("_id", take.chatId()),
            update(take),
            new FindOneAndUpdateOptions()
                .projection(READ_BACK)
                .returnDocument(ReturnDocument.AFTER));
    if (chat == null) {
      return new Taken(0, null);
    }
    Taken taken = landed(take, chat);
    return taken != null
        ? taken
        : new Taken(0, new IllegalStateException("a take missing from its own write's answer"));
  }

  private Bson update(Take take) {
    List<Bson> updates = new ArrayList<>(2 + take.counts().size());
    updates.add(Updates.inc(RunLedger.SEQ_FIELD, (long) take.count()));
    updates.add(
        Updates.pushEach(
            TAKES_FIELD,
            List.of(new Document("t", take.token()).append("n", take.count())),
            new PushOptions().slice(-kept)));
    take.counts().forEach((path, amount) -> updates.add(Updates.inc(path, amount)));
    return Updates.combine(updates);
  }

  /**
   * Where the take landed by the chat as read after it: its last position is the counter less the
   * counts of the takes made after it. Null when the chat no longer keeps the take.
   */
  static @Nullable Taken landed(Take take, Document chat) {
    List<Document> recent = chat.getList(TAKES_FIELD, Document.class, List.of());
    long after = 0;
    for (int i = recent.size() - 1; i >= 0; i--) {
      Document made = recent.get(i);
      if (take.token().equals(made.get("t"))) {
        long last = ((Number) chat.get(RunLedger.SEQ_FIELD)).longValue() - after;
        return new Taken(last - take.count() + 1, null);
      }
      after += ((Number) made.get("n")).longValue();
    }
    return null;
  }
}
