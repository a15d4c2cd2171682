package dev.agentrt.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.store.SubAgentConversations.Appended;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Appends to a sub-agent's conversation on a real MongoDB-protocol server, one at a time and
 * racing.
 */
class SubAgentConversationsTest {

  private static MongoServer server;
  private static MongoClient client;
  private static MongoTemplate mongo;
  private static SubAgentConversations conversations;

  @BeforeAll
  static void start() {
    server = new MongoServer(new MemoryBackend());
    client = MongoClients.create("mongodb://127.0.0.1:" + server.bind().getPort());
    mongo = new MongoTemplate(client, "agentrt");
    new StoreIndexes(mongo).afterPropertiesSet();
    conversations = new SubAgentConversations(mongo);
  }

  @AfterAll
  static void stop() {
    client.close();
    server.shutdownNow();
  }

  @Test
  void ofTwoConcurrentAppendsOfTheSameMessageExactlyOneInsertsIt() throws Exception {
    SubAgent subAgent = storedSubAgent();
    try (ExecutorService both = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int round = 0; round < 20; round++) {
        NewMessage message = message(Ids.fresh(), "result " + round);
        CyclicBarrier together = new CyclicBarrier(2);
        Future<Appended> first =
            both.submit(
                () -> {
                  together.await();
                  return conversations.appendIfAbsent(subAgent, message, Instant.EPOCH);
                });
        Future<Appended> second =
            both.submit(
                () -> {
                  together.await();
                  return conversations.appendIfAbsent(subAgent, message, Instant.EPOCH);
                });
        List<Appended> appended = List.of(first.get(), second.get());

        assertThat(appended).filteredOn(Appended::inserted).hasSize(1);
        assertThat(appended.get(0).message()).isEqualTo(appended.get(1).message());
        assertThat(appended.get(0).message().content()).isEqualTo("result " + round);
      }
    }
    assertThat(conversations.messages(subAgent.id()))
        .extracting(SubAgentMessage::content)
        .hasSize(20)
        .doesNotHaveDuplicates();
  }

  @Test
  void appendingAgainReturnsWhatWasStoredAndLaterMessagesStillComeAfterIt() {
    SubAgent subAgent = storedSubAgent();
    String id = Ids.fresh();

    Appended first = conversations.appendIfAbsent(subAgent, message(id, "first"), Instant.EPOCH);
    Appended again = conversations.appendIfAbsent(subAgent, message(id, "again"), Instant.EPOCH);
    Appended next =
        conversations.appendIfAbsent(subAgent, message(Ids.fresh(), "next"), Instant.EPOCH);

    assertThat(first.inserted()).isTrue();
    assertThat(again.inserted()).isFalse();
    assertThat(again.message()).isEqualTo(first.message());
    assertThat(next.inserted()).isTrue();
    assertThat(conversations.messages(subAgent.id()))
        .extracting(SubAgentMessage::content)
        .containsExactly("first", "next");
  }

  @Test
  void aClashOnTheSequenceNumberIsNotTakenForAnEarlierAppendOfTheMessage() {
    SubAgent subAgent = storedSubAgent();
    // A message holding the next seq without having counted it: the append's insert clashes on
    // (subAgentId, seq), not on its id.
    mongo.insert(
        new SubAgentMessage(
            Ids.fresh(),
            subAgent.id(),
            subAgent.taskId(),
            subAgent.chatId(),
            1,
            SubAgentMessage.USER,
            "squatter",
            List.of(),
            null,
            Instant.EPOCH,
            List.of()));
    NewMessage message = message(Ids.fresh(), "mine");

    assertThatThrownBy(() -> conversations.appendIfAbsent(subAgent, message, Instant.EPOCH))
        .isInstanceOf(DuplicateKeyException.class);
    assertThat(mongo.findById(message.id(), SubAgentMessage.class)).isNull();
  }

  @Test
  void placesTakenWithTheCountReadAreTheNextUnlessAMessageCameOrTheSubAgentStopped() {
    SubAgent subAgent = storedSubAgent();
    conversations.appendIfAbsent(subAgent, message(Ids.fresh(), "first"), Instant.EPOCH);
    long counted = mongo.findById(subAgent.id(), SubAgent.class).messageCount();

    assertThat(conversations.takeSeqsWhileActive(subAgent.id(), 1, counted, Instant.EPOCH))
        .hasValue(counted + 1);
    conversations.appendIfAbsent(subAgent, message(Ids.fresh(), "meanwhile"), Instant.EPOCH);
    assertThat(conversations.takeSeqsWhileActive(subAgent.id(), 2, counted + 1, Instant.EPOCH))
        .as("after the message that came since the count was read")
        .hasValue(counted + 3);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new Update().set("status", SubAgentStatus.cancelled),
        SubAgent.class);
    assertThat(conversations.takeSeqsWhileActive(subAgent.id(), 1, counted + 4, Instant.EPOCH))
        .isEmpty();
    assertThat(mongo.findById(subAgent.id(), SubAgent.class).messageCount()).isEqualTo(counted + 4);
  }

  /**
   * A message appended expecting a count goes right after it while the conversation still counts
   * it, else after what came meanwhile; of any sub-agent, as a tool result is (a stopped one too),
   * and once by its id.
   */
  @Test
  void aMessageAppendedExpectingACountGoesAfterItUnlessAnotherCameFirst() {
    SubAgent subAgent = storedSubAgent();
    conversations.appendIfAbsent(subAgent, message(Ids.fresh(), "answer"), Instant.EPOCH);
    long expected = mongo.findById(subAgent.id(), SubAgent.class).messageCount();
    SubAgentIds ids = SubAgentIds.of(subAgent);

    NewMessage first = message(Ids.fresh(), "first result");
    assertThat(conversations.append(ids, first, expected, Instant.EPOCH).seq())
        .isEqualTo(expected + 1);
    assertThat(
            conversations
                .append(ids, message(Ids.fresh(), "second result"), expected, Instant.EPOCH)
                .seq())
        .as("the first came before it")
        .isEqualTo(expected + 2);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new Update().set("status", SubAgentStatus.cancelled),
        SubAgent.class);
    assertThat(
            conversations
                .append(ids, message(Ids.fresh(), "third result"), expected + 2, Instant.EPOCH)
                .seq())
        .isEqualTo(expected + 3);
    assertThat(conversations.append(ids, first, expected + 3, Instant.EPOCH).seq())
        .as("appended before: the stored one")
        .isEqualTo(expected + 1);
    assertThat(conversations.messages(subAgent.id()))
        .extracting(SubAgentMessage::content)
        .containsExactly("answer", "first result", "second result", "third result");
  }

  @Test
  void appendingToASubAgentThatIsNotStoredFails() {
    SubAgent missing =
        new SubAgent(
            Ids.fresh(),
            "task",
            "chat",
            "researcher",
            SubAgentStatus.active,
            0,
            null,
            Instant.EPOCH,
            Instant.EPOCH);

    assertThatThrownBy(
            () -> conversations.appendIfAbsent(missing, message(Ids.fresh(), "x"), Instant.EPOCH))
        .isInstanceOf(IllegalStateException.class);
    assertThat(conversations.messages(missing.id())).isEmpty();
  }

  /**
   * An event carries its message's text up to the limit, and leaves a longer one (or none) to be
   * read; either way it is the event {@code added} makes, with the same id.
   */
  @Test
  void anEventCarriesAMessageUpToTheLimitAndNoLongerOne() {
    SubAgentIds ids = new SubAgentIds("sub", "task", "chat");
    Instant at = Instant.parse("2026-11-28T12:00:00.123Z");
    String longest = "x".repeat(SubAgentConversations.MAX_CARRIED);

    SubAgentMessageAdded carrying =
        SubAgentConversations.addedCarrying(ids, "m1", SubAgentMessage.TOOL, longest, "call_1", at);
    SubAgentMessageAdded tooLong =
        SubAgentConversations.addedCarrying(
            ids, "m1", SubAgentMessage.TOOL, longest + "x", "call_1", at);
    SubAgentMessageAdded empty =
        SubAgentConversations.addedCarrying(ids, "m1", SubAgentMessage.TOOL, null, "call_1", at);

    assertThat(carrying.message()).isEqualTo(new SubAgentMessageAdded.Carried(longest, "call_1"));
    SubAgentMessageAdded plain = SubAgentConversations.added(ids, "m1", SubAgentMessage.TOOL, at);
    assertThat(tooLong).isEqualTo(plain);
    assertThat(empty).isEqualTo(plain);
    assertThat(carrying.eventId()).isEqualTo(plain.eventId());
  }

  /**
   * An instruction's event carries the start (the sub-agent's settings, its system prompt) and the
   * instruction while both texts are within the limit; either one longer, and it carries neither.
   */
  @Test
  void anInstructionsEventCarriesTheStartWhileBothTextsAreWithinTheLimit() {
    Instant at = Instant.parse("2026-11-28T12:00:00.123Z");
    SubAgent subAgent =
        new SubAgent(
            "sub",
            "task",
            "chat",
            "researcher",
            SubAgentStatus.active,
            0,
            null,
            at,
            at,
            null,
            new SubAgent.Settings("m", new ChatLimits(3, null, null), "root", at, true));
    String longest = "x".repeat(SubAgentConversations.MAX_CARRIED);

    SubAgentMessageAdded carrying =
        SubAgentConversations.addedStarting(subAgent, "p", longest, "i", "Research", at);

    assertThat(carrying.message()).isEqualTo(new SubAgentMessageAdded.Carried("Research", null));
    assertThat(carrying.start())
        .isEqualTo(
            new SubAgentMessageAdded.Start(
                "researcher",
                "p",
                longest,
                "m",
                new TaskCreated.Limits(3, null, null),
                "root",
                at,
                true));
    SubAgentMessageAdded plain =
        SubAgentConversations.added(subAgent, "i", SubAgentMessage.USER, at);
    assertThat(SubAgentConversations.addedStarting(subAgent, "p", longest + "x", "i", "R", at))
        .isEqualTo(plain);
    assertThat(SubAgentConversations.addedStarting(subAgent, "p", "P", "i", longest + "x", at))
        .isEqualTo(plain);
  }

  private static SubAgent storedSubAgent() {
    return mongo.insert(
        new SubAgent(
            Ids.fresh(),
            Ids.fresh(),
            Ids.fresh(),
            "researcher",
            SubAgentStatus.active,
            0,
            null,
            Instant.EPOCH,
            Instant.EPOCH));
  }

  private static NewMessage message(String id, String content) {
    return new NewMessage(id, SubAgentMessage.TOOL, content, List.of(), "call_1", List.of());
  }
}
