package dev.agentrt.orchestrator.chat;

import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunLedger;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.stereotype.Component;

/** Chats and the person's messages: stored first, then announced through the outbox. */
@Component
public class Chats {

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final Outbox outbox;
  private final EventCodec codec;
  private final RunLedger ledger;
  private final ChatMessageRate rate;
  private final Clock clock;

  public Chats(
      MongoTemplate mongo,
      BulkWrites writes,
      Outbox outbox,
      EventCodec codec,
      RunLedger ledger,
      ChatMessageRate rate) {
    this.mongo = mongo;
    this.writes = writes;
    this.outbox = outbox;
    this.codec = codec;
    this.ledger = ledger;
    this.rate = rate;
    this.clock = Clock.systemUTC();
  }

  /**
   * @param model the chat's model (null: the agents' or the default), already checked
   * @param limits the chat's run limits (null: the global and agents' ones)
   * @param owner the user creating it
   */
  public Chat create(
      String title, @Nullable String model, @Nullable ChatLimits limits, String owner) {
    Chat chat = new Chat(Ids.fresh(), title, model, clock.instant(), null, limits, null, owner);
    writes.insert(chat);
    ledger.learn(chat.id(), 0); // its ledger is empty: its first event needs no read to place it
    return chat;
  }

  public Optional<Chat> find(String chatId) {
    return Optional.ofNullable(mongo.findById(chatId, Chat.class));
  }

  /**
   * Stores the person's message, with the model chosen for it (null: the chat's), and the event
   * that announces it. When the broker is not reachable right now the message is still accepted:
   * the outbox relay publishes it later.
   *
   * @throws TooManyMessagesException when the chat has had its limit of messages in the last
   *     minute; nothing is stored then
   */
  public ChatMessage postUserMessage(String chatId, String content, @Nullable String model) {
    return store(chatId, content, model, rate.admit(chatId));
  }

  /**
   * {@link #postUserMessage}, to a chat that matches {@code writable} ({@link
   * ChatAccess#writableCondition}), checked by the write that takes the message's place in the
   * chat's window: no read of the chat first.
   *
   * @return empty, storing nothing, when no chat with this id matches {@code writable}
   */
  Optional<ChatMessage> postUserMessage(
      String chatId, Criteria writable, String content, @Nullable String model) {
    return rate.admit(chatId, writable).map(chat -> store(chatId, content, model, chat));
  }

  private ChatMessage store(
      String chatId, String content, @Nullable String model, ChatMessage.ChatSettings chat) {
    String id = Ids.fresh();
    Instant now = clock.instant();
    OutboxEntry added =
        OutboxEntry.of(
            new ChatMessageAdded(Ids.fresh(), now, chatId, id, ChatMessage.USER, null), codec);
    ChatMessage message =
        ChatMessage.fromPerson(id, chatId, content, model, chat, now, List.of(added));
    writes.insert(message);
    ledger.message(message);
    outbox.publishOrLeaveToRelay(Collections.CHAT_MESSAGES, id, message.outbox());
    return message;
  }

  public List<ChatMessage> messages(String chatId) {
    return mongo.find(
        Query.query(Criteria.where("chatId").is(chatId)).with(Sort.by("createdAt", "id")),
        ChatMessage.class);
  }
}
