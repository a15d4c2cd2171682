package dev.agentrt.orchestrator.chat;

import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import org.bson.Document;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ResponseStatusException;

/**
 * At most {@code agentrt.orchestrator.max-messages-per-chat-per-minute} of the person's messages
 * per chat in any minute (a sliding window), counted in MongoDB so that it holds across every
 * orchestrator copy and costs no memory here.
 *
 * <p>The chat document keeps the times of its last accepted messages in {@value #RECENT}, oldest
 * first and never more than the limit. One conditional write ({@code findAndModify}) both checks
 * and takes a place: it matches only while fewer than the limit fall in the last minute (the list
 * is not full, or its oldest time is a minute old) and pushes the new time, keeping the list sorted
 * and cut to the limit. The same write checks that the chat is the person's ({@link #admit(String,
 * Criteria)}) and returns the chat's model and limits, which the message carries to its decision.
 * Only a refused message costs a second round trip: to tell a chat that is not theirs from one that
 * is full, and to say when a place frees.
 */
@Component
public class ChatMessageRate {

  static final String RECENT = "recentMessages";
  static final Duration WINDOW = Duration.ofMinutes(1);
  static final String PROPERTY = "agentrt.orchestrator.max-messages-per-chat-per-minute";

  private static final String MODEL = "model";
  private static final String LIMITS = "limits";

  private final MongoTemplate mongo;
  private final int limit;
  private final Clock clock;

  /**
   * @param clock a {@link Clock} bean if there is one (a test's fixed clock), else the system's
   */
  @Autowired
  ChatMessageRate(
      MongoTemplate mongo,
      @Value("${" + PROPERTY + ":30}") int limit,
      ObjectProvider<Clock> clock) {
    this(mongo, limit, clock.getIfAvailable(Clock::systemUTC));
  }

  public ChatMessageRate(MongoTemplate mongo, int limit, Clock clock) {
    if (limit < 1) {
      throw new IllegalArgumentException(PROPERTY + " must be at least 1, got: " + limit);
    }
    this.mongo = mongo;
    this.limit = limit;
    this.clock = clock;
  }

  /**
   * Takes a place in the chat's window for one message.
   *
   * @return the chat's settings, as the write that took the place read them
   * @throws TooManyMessagesException when the chat has had its limit in the last minute
   * @throws ResponseStatusException 404 when there is no such chat
   */
  ChatMessage.ChatSettings admit(String chatId) {
    return admit(chatId, new Criteria())
        .orElseThrow(
            () -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no chat with id " + chatId));
  }

  /**
   * Takes a place in the chat's window for one message if the chat also matches {@code writable}
   * (whose it must be: {@link ChatAccess#writableCondition}): one write checks both and reads the
   * chat's settings, so that a message costs no read of its chat, here or at its decision.
   *
   * @return the chat's settings; empty, taking nothing, when no chat with this id matches {@code
   *     writable}
   * @throws TooManyMessagesException when the chat matches but has had its limit in the last minute
   */
  Optional<ChatMessage.ChatSettings> admit(String chatId, Criteria writable) {
    Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS); // as precise as MongoDB
    Query roomLeft =
        Query.query(
            new Criteria()
                .andOperator(
                    Criteria.where("_id").is(chatId),
                    writable,
                    new Criteria()
                        .orOperator(
                            Criteria.where(RECENT + "." + (limit - 1)).exists(false),
                            Criteria.where(RECENT + ".0").lte(now.minus(WINDOW)))));
    roomLeft.fields().include(MODEL, LIMITS);
    Update take = new Update().push(RECENT).sort(Sort.Direction.ASC).slice(-limit).each(now);
    Document admitted = mongo.findAndModify(roomLeft, take, Document.class, Collections.CHATS);
    if (admitted != null) {
      Document limits = admitted.get(LIMITS, Document.class);
      return Optional.of(
          new ChatMessage.ChatSettings(
              admitted.getString(MODEL),
              limits == null
                  ? ChatLimits.NONE
                  : mongo.getConverter().read(ChatLimits.class, limits)));
    }
    Query chat =
        Query.query(new Criteria().andOperator(Criteria.where("_id").is(chatId), writable));
    chat.fields().include(RECENT);
    Document found = mongo.findOne(chat, Document.class, Collections.CHATS);
    if (found == null) {
      return Optional.empty();
    }
    throw new TooManyMessagesException(chatId, limit, untilAPlaceFrees(found, now));
  }

  /** Whole seconds, at least 1, until the oldest message counted in the chat leaves the window. */
  private long untilAPlaceFrees(Document chat, Instant now) {
    List<Date> recent = chat.getList(RECENT, Date.class, List.of());
    if (recent.isEmpty()) {
      return 1;
    }
    Instant oldestCounted = recent.get(Math.max(0, recent.size() - limit)).toInstant();
    long millis = Duration.between(now, oldestCounted.plus(WINDOW)).toMillis();
    return Math.max(1, (millis + 999) / 1000);
  }
}
