package dev.agentrt.orchestrator.decision;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.LeaseProperties;
import dev.agentrt.store.LeasedWork;
import dev.agentrt.store.Leases;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Decides the person's messages chat by chat, each chat on its own virtual thread, so a slow
 * decision model holds up no other chat and the Kafka consumer moves on at once (DESIGN invariant
 * 4).
 *
 * <p>A chat's messages are decided one at a time, in the order they were stored, each seeing what
 * the one before it led to. Whoever decides a chat holds it with a lease ({@link Leases}, the
 * chat's {@code deciding} field) while it decides the oldest message awaiting a decision, and goes
 * on to the next while one awaits that was posted while it held the chat (its event found the chat
 * held, and marked it). The {@link dev.agentrt.store.LeaseSweeper} renews the holds while this
 * instance lives, then {@link #sweep} offers the chats with messages awaiting a decision: those of
 * an orchestrator that died (its hold expired) and those whose event was lost. Deciding a message
 * twice (a hold lost to a long pause) does no harm: an outcome is written once, under an id derived
 * from the message.
 *
 * <p>A message is marked tried ({@code decisionTried}) in the write that takes it up, before any of
 * its outcomes can be written; only a message tried before has its stored outcome looked for, so
 * the first try of a message costs no reads for outcomes that cannot exist.
 */
class ChatDecisions implements LeasedWork, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ChatDecisions.class);

  /** Failed attempts to decide a message before the person gets an apology instead. */
  static final int MAX_ATTEMPTS = 5;

  private static final String FAILED_ATTEMPTS = "failedDecisions";

  private static final String TRIED = "decisionTried";

  /** On a chat: a message was posted while the chat was held; its holder decides it. */
  static final String POSTED_WHILE_HELD = "postedWhileHeld";

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final Orchestrator orchestrator;
  private final Consumer<Publication> publish;
  private final ExecutorService deciders;
  private final Leases holds;
  private final Duration sweepGrace;

  ChatDecisions(
      MongoTemplate mongo,
      BulkWrites writes,
      Orchestrator orchestrator,
      Consumer<Publication> publish,
      ExecutorService deciders,
      LeaseProperties leases,
      Duration sweepGrace) {
    this.sweepGrace = sweepGrace;
    this.mongo = mongo;
    this.writes = writes;
    this.orchestrator = orchestrator;
    this.publish = publish;
    this.deciders = deciders;
    this.holds = new Leases(mongo, writes, Chat.class, "deciding", leases.duration(), null);
  }

  /**
   * Takes up the chat's messages that await a decision, unless someone decides the chat already:
   * then the chat is marked ({@value #POSTED_WHILE_HELD}) so that its holder decides them before it
   * lets go, and taken again, in case the holder let go before the mark.
   */
  void offer(String chatId) {
    if (take(chatId)) {
      return;
    }
    writes.update(
        Query.query(Criteria.where("_id").is(chatId)),
        new Update().set(POSTED_WHILE_HELD, true),
        Collections.CHATS);
    take(chatId);
  }

  private boolean take(String chatId) {
    if (holds.take(chatId, new Criteria(), new Update())) {
      holds.run(chatId, deciders, () -> decideAwaiting(chatId));
      return true;
    }
    return false;
  }

  @Override
  public Leases leases() {
    return holds;
  }

  /**
   * Offers every chat with messages that have awaited a decision longer than the sweep's grace:
   * their holder died, or their event was lost. A message posted a moment ago is its event's: the
   * sweep does not race it (the decision then runs in the trace of the request that posted it).
   */
  @Override
  public void sweep() {
    chatsAwaitingDecision(Instant.now().minus(sweepGrace)).forEach(this::offer);
  }

  /** Chats with messages that await a decision, stored before {@code before}. */
  List<String> chatsAwaitingDecision(Instant before) {
    return mongo.findDistinct(
        Query.query(
            Criteria.where(ChatMessage.AWAITING_DECISION).is(true).and("createdAt").lt(before)),
        "chatId",
        ChatMessage.class,
        String.class);
  }

  /**
   * Decides the chat's oldest message awaiting a decision and lets go of the chat, unless messages
   * were posted while it was held ({@value #POSTED_WHILE_HELD}), or the message taken was tried
   * before (its decider died, and others may have waited behind it): then it decides every message
   * that awaits, oldest first, until none does, and lets go only if none was posted meanwhile. So a
   * message costs no look for another one unless one came. The mark is set before the poster's
   * second take and the end of the hold matches only without it, so no message is left undecided.
   * The take, the message's mark and the end of the hold go out with the process's other writes
   * ({@link BulkWrites}): under load, those of many chats in one command each.
   */
  private void decideAwaiting(String chatId) {
    try {
      boolean untilNone = false;
      while (true) {
        Taken next = takeOldestAwaiting(chatId);
        if (next != null) {
          publish.accept(decide(next));
          writes.update(
              Query.query(Criteria.where("_id").is(next.message().id())),
              new Update().unset(ChatMessage.AWAITING_DECISION).unset(FAILED_ATTEMPTS).unset(TRIED),
              Collections.CHAT_MESSAGES);
          untilNone |= next.triedBefore();
          if (untilNone) {
            continue;
          }
        }
        holds.done(chatId);
        if (holds.endIfUnchanged(
            chatId,
            Criteria.where(POSTED_WHILE_HELD).exists(false),
            new Update().unset("deciding"))) {
          return;
        }
        // Posted while held; or the hold was lost, and whoever holds the chat now decides it.
        if (!holds.takeNext(
            chatId,
            Criteria.where(POSTED_WHILE_HELD).exists(true),
            new Update().unset(POSTED_WHILE_HELD))) {
          return;
        }
        untilNone = true;
      }
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        return; // stopping (close() lets go of the chat), or the hold was lost
      }
      log.warn("deciding chat {} stopped, the sweep takes it up again: {}", chatId, e.toString());
      holds.release(chatId);
    }
  }

  /**
   * The message's outcome; after {@value #MAX_ATTEMPTS} failed attempts, an apology, so that a
   * message no decision can be made for does not stop its chat for good. A failure that stops the
   * counting too (the database unreachable) is retried for as long as it lasts.
   */
  private Publication decide(Taken taken) {
    ChatMessage message = taken.message();
    try {
      return orchestrator.handle(message, taken.triedBefore());
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted() || failedAttempts(message) < MAX_ATTEMPTS) {
        throw e;
      }
      log.error(
          "deciding message {} of chat {} failed {} times, answering with an apology",
          message.id(),
          message.chatId(),
          MAX_ATTEMPTS,
          e);
      return orchestrator.apologise(message);
    }
  }

  /** Counts a failed attempt; the driver directly, as the count is no field of the message. */
  private int failedAttempts(ChatMessage message) {
    Document counted =
        mongo
            .getCollection(Collections.CHAT_MESSAGES)
            .findOneAndUpdate(
                Filters.eq("_id", message.id()),
                Updates.inc(FAILED_ATTEMPTS, 1),
                new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER));
    return counted == null ? MAX_ATTEMPTS : counted.getInteger(FAILED_ATTEMPTS, MAX_ATTEMPTS);
  }

  /** A message taken up to be decided, and whether it had been taken up before. */
  private record Taken(ChatMessage message, boolean triedBefore) {}

  /**
   * The chat's oldest message awaiting a decision, marked tried in the same write, which returns
   * the message as it was; by the driver, as the mark is no field of the message (like {@link
   * #failedAttempts}'s count).
   */
  private @Nullable Taken takeOldestAwaiting(String chatId) {
    Document before =
        mongo
            .getCollection(Collections.CHAT_MESSAGES)
            .findOneAndUpdate(
                awaiting(chatId),
                Updates.set(TRIED, true),
                new FindOneAndUpdateOptions()
                    .sort(Sorts.ascending("createdAt", "_id"))
                    .returnDocument(ReturnDocument.BEFORE));
    return before == null
        ? null
        : new Taken(
            mongo.getConverter().read(ChatMessage.class, before), before.containsKey(TRIED));
  }

  private static Document awaiting(String chatId) {
    return new Document("chatId", chatId).append(ChatMessage.AWAITING_DECISION, true);
  }

  /**
   * Stops deciding and lets go of the chats held, so that the next orchestrator takes them up at
   * once instead of after their holds expire. A decision cut short is made again: its outcome is
   * written once whoever writes it.
   */
  @Override
  public void close() throws InterruptedException {
    deciders.shutdownNow();
    deciders.awaitTermination(5, TimeUnit.SECONDS);
    holds.releaseAll();
  }
}
