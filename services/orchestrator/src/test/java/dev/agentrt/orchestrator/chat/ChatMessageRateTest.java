package dev.agentrt.orchestrator.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentrt.orchestrator.testing.SettableClock;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.testing.InMemoryMongo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

/**
 * The messages-per-chat-per-minute window on the real Mongo-protocol server: a sliding minute,
 * shared by every orchestrator copy, held in a list on the chat that never outgrows the limit.
 */
class ChatMessageRateTest {

  private static final Instant T0 = Instant.parse("2026-11-22T12:00:00Z");

  private static InMemoryMongo database;
  private static MongoTemplate mongo;

  private final SettableClock clock = new SettableClock(T0);

  @BeforeAll
  static void startMongo() {
    database = InMemoryMongo.start();
    mongo = database.template();
  }

  @AfterAll
  static void stopMongo() {
    database.close();
  }

  @BeforeEach
  void aChat() {
    database.clear();
    mongo.insert(new Chat("chat-1", "t", T0));
    mongo.insert(new Chat("chat-2", "t", T0));
  }

  @Test
  void takesTheLimitInAnyMinuteAndSaysWhenTheOldestLeavesIt() {
    ChatMessageRate rate = new ChatMessageRate(mongo, 3, clock);
    rate.admit("chat-1");
    clock.advance(Duration.ofSeconds(10));
    rate.admit("chat-1");
    clock.advance(Duration.ofSeconds(10));
    rate.admit("chat-1");
    clock.advance(Duration.ofSeconds(10)); // T0+30s: three in the last minute

    assertThat(retryAfter(() -> rate.admit("chat-1"))).isEqualTo("30");
    rate.admit("chat-2"); // another chat has its own window

    clock.advance(Duration.ofSeconds(30)); // T0+60s: the first has left the window
    rate.admit("chat-1");
    assertThat(retryAfter(() -> rate.admit("chat-1")))
        .as("the second leaves at T0+70s")
        .isEqualTo("10");
    clock.advance(Duration.ofMillis(9_001));
    assertThat(retryAfter(() -> rate.admit("chat-1"))).as("rounded up").isEqualTo("1");
    clock.advance(Duration.ofMillis(999));
    rate.admit("chat-1");
  }

  @Test
  void theChatKeepsNoMoreTimesThanTheLimit() {
    ChatMessageRate rate = new ChatMessageRate(mongo, 3, clock);
    for (int i = 0; i < 10; i++) {
      rate.admit("chat-1");
      clock.advance(Duration.ofSeconds(30));
    }

    Document chat =
        mongo.getCollection(Collections.CHATS).find(new Document("_id", "chat-1")).first();
    assertThat(chat.getList(ChatMessageRate.RECENT, java.util.Date.class))
        .extracting(java.util.Date::toInstant)
        .containsExactly(T0.plusSeconds(210), T0.plusSeconds(240), T0.plusSeconds(270));
    assertThat(mongo.findById("chat-1", Chat.class).title())
        .as("the chat still reads as a chat")
        .isEqualTo("t");
  }

  @Test
  void twoOrchestratorCopiesRacingShareOneLimit() throws Exception {
    int limit = 5;
    List<ChatMessageRate> copies =
        List.of(new ChatMessageRate(mongo, limit, clock), new ChatMessageRate(mongo, limit, clock));
    int attempts = 40;
    CyclicBarrier start = new CyclicBarrier(attempts);
    List<Future<Boolean>> admitted = new ArrayList<>();
    try (ExecutorService threads = Executors.newFixedThreadPool(attempts)) {
      for (int i = 0; i < attempts; i++) {
        ChatMessageRate copy = copies.get(i % 2);
        admitted.add(
            threads.submit(
                () -> {
                  start.await();
                  try {
                    copy.admit("chat-1");
                    return true;
                  } catch (TooManyMessagesException refused) {
                    return false;
                  }
                }));
      }
      int taken = 0;
      for (Future<Boolean> one : admitted) {
        taken += one.get() ? 1 : 0;
      }
      assertThat(taken).isEqualTo(limit);
    }
  }

  @Test
  void anUnknownChatIsNotFound() {
    ChatMessageRate rate = new ChatMessageRate(mongo, 3, clock);

    assertThatThrownBy(() -> rate.admit("no-such-chat"))
        .isInstanceOfSatisfying(
            ResponseStatusException.class,
            e -> assertThat(e.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND));
  }

  @Test
  void theWriteThatTakesAPlaceAlsoChecksWhoseTheChatIs() {
    mongo.insert(new Chat("alices", "t", T0, "alice"));
    ChatMessageRate rate = new ChatMessageRate(mongo, 3, clock);
    Criteria alice = Criteria.where("owner").is("alice");
    Criteria bob = Criteria.where("owner").is("bob");

    assertThat(rate.admit("alices", bob)).as("not bob's").isEmpty();
    assertThat(rate.admit("no-such-chat", alice)).isEmpty();
    assertThat(recent("alices")).as("nothing taken").isEmpty();
    for (int i = 0; i < 3; i++) {
      assertThat(rate.admit("alices", alice)).isPresent();
    }
    assertThat(recent("alices")).hasSize(3);

    assertThat(rate.admit("alices", bob))
        .as("a full chat that is not bob's is not found, as an empty one")
        .isEmpty();
    assertThatThrownBy(() -> rate.admit("alices", alice))
        .isInstanceOf(TooManyMessagesException.class);
  }

  /** The write that admits a message reads its chat's model and limits, for its decision. */
  @Test
  void admittingAMessageReadsItsChatsSettings() {
    mongo.insert(
        new Chat("limited", "t", "fast", T0, null, new ChatLimits(4, null, 60L), null, null));
    ChatMessageRate rate = new ChatMessageRate(mongo, 3, clock);

    assertThat(rate.admit("limited"))
        .isEqualTo(new ChatMessage.ChatSettings("fast", new ChatLimits(4, null, 60L)));
    assertThat(rate.admit("chat-1"))
        .as("a chat without a model or limits")
        .isEqualTo(new ChatMessage.ChatSettings(null, ChatLimits.NONE));
  }

  private static List<java.util.Date> recent(String chatId) {
    Document chat =
        mongo.getCollection(Collections.CHATS).find(new Document("_id", chatId)).first();
    return chat.getList(ChatMessageRate.RECENT, java.util.Date.class, List.of());
  }

  @Test
  void refusesALimitBelowOne() {
    assertThatThrownBy(() -> new ChatMessageRate(mongo, 0, clock))
        .hasMessageContaining("agentrt.orchestrator.max-messages-per-chat-per-minute");
  }

  private static String retryAfter(Runnable admit) {
    try {
      admit.run();
    } catch (TooManyMessagesException refused) {
      assertThat(refused.getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
      assertThat(refused.getBody().getDetail())
          .contains("chat-1 has had 3 messages in the last minute");
      return refused.getHeaders().getFirst(HttpHeaders.RETRY_AFTER);
    }
    throw new AssertionError("the message was taken");
  }
}
