package dev.agentrt.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.store.SubAgentConversations.Appended;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

/** Token sums on a real MongoDB-protocol server, and appends that say whether they stored. */
class UsageCounterTest {

  private static MongoServer server;
  private static MongoClient client;
  private static MongoTemplate mongo;

  @BeforeAll
  static void start() {
    server = new MongoServer(new MemoryBackend());
    client = MongoClients.create("mongodb://127.0.0.1:" + server.bind().getPort());
    mongo = new MongoTemplate(client, "agentrt");
    new StoreIndexes(mongo).afterPropertiesSet();
  }

  @AfterAll
  static void stop() {
    client.close();
    server.shutdownNow();
  }

  /** A chat's usage as read: its own sums plus its tasks', model by model. */
  @Test
  void sumsAddUpModelByModel() {
    Usage own = new Usage(10, 1, 1, Map.of("a", new Usage.ModelTokens(10, 1, 1)));
    Usage task =
        new Usage(
            25,
            4,
            3,
            Map.of("a", new Usage.ModelTokens(5, 2, 1), "b", new Usage.ModelTokens(20, 2, 2)));

    Usage both = own.plus(task).plus(null).plus(Usage.NONE);

    assertThat(both.promptTokens()).isEqualTo(35);
    assertThat(both.completionTokens()).isEqualTo(5);
    assertThat(both.turns()).isEqualTo(4);
    assertThat(both.byModel())
        .containsEntry("a", new Usage.ModelTokens(15, 3, 2))
        .containsEntry("b", new Usage.ModelTokens(20, 2, 2))
        .hasSize(2);
    assertThat(Usage.NONE.plus(task)).isEqualTo(task);
  }

  @Test
  void sumsTurnsOnADocumentThatHadNoneAndSplitsThemByModel() {
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "t", Instant.EPOCH));
    UsageCounter counter = new UsageCounter(mongo);

    counter.add(Chat.class, chat.id(), "gpt-4.1-mini", new TurnUsage(100, 20), 1);
    counter.add(Chat.class, chat.id(), "gpt-4.1-mini", new TurnUsage(50, 5), 2);
    counter.add(Chat.class, chat.id(), null, new TurnUsage(7, 3), 1);
    counter.add(Chat.class, chat.id(), "nothing", new TurnUsage(1000, 1000), 0);

    Usage usage = mongo.findById(chat.id(), Chat.class).usage();
    assertThat(usage.promptTokens()).isEqualTo(157);
    assertThat(usage.completionTokens()).isEqualTo(28);
    assertThat(usage.turns()).isEqualTo(4);
    Map<String, Usage.ModelTokens> byModel = usage.byModel();
    assertThat(byModel)
        .containsEntry("gpt-4.1-mini", new Usage.ModelTokens(150, 25, 3))
        .containsEntry(null, new Usage.ModelTokens(7, 3, 1))
        .hasSize(2);
  }

  @Test
  void aDocumentWithoutTurnsHasNoUsage() {
    Chat chat = mongo.insert(new Chat(Ids.fresh(), "t", Instant.EPOCH));

    assertThat(mongo.findById(chat.id(), Chat.class).usage()).isNull();
    assertThat(Usage.of(null)).isEqualTo(Usage.NONE);
  }

  @Test
  void modelNamesBecomeFieldNamesAndBack() {
    for (String name : List.of("gpt-4.1", "a$b", "50%.x", "(default)", "llama3:8b", "openai/o3")) {
      String key = UsageCounter.key(name);
      assertThat(key).doesNotContain(".").doesNotStartWith("$").isNotEqualTo("(default)");
      assertThat(UsageCounter.modelName(key)).isEqualTo(name);
    }
    assertThat(UsageCounter.modelName(UsageCounter.key(null))).isNull();
  }

  @Test
  void appendingTheSameMessageTwiceStoresItOnceAndSaysSo() {
    SubAgent subAgent =
        mongo.insert(
            new SubAgent(
                Ids.fresh(),
                "task",
                "chat",
                "researcher",
                SubAgentStatus.active,
                0,
                null,
                Instant.EPOCH,
                Instant.EPOCH));
    SubAgentConversations conversations = new SubAgentConversations(mongo);
    NewMessage answer =
        new NewMessage(
            Ids.fresh(),
            SubAgentMessage.ASSISTANT,
            "Done.",
            List.of(),
            null,
            "gpt-4.1-mini",
            new TurnUsage(12, 3),
            null,
            List.of());

    Appended first = conversations.appendIfAbsent(subAgent, answer, Instant.EPOCH);
    Appended again = conversations.appendIfAbsent(subAgent, answer, Instant.EPOCH);

    assertThat(first.inserted()).isTrue();
    assertThat(again.inserted()).isFalse();
    assertThat(again.message()).isEqualTo(first.message());
    assertThat(first.message().model()).isEqualTo("gpt-4.1-mini");
    assertThat(first.message().usage()).isEqualTo(new TurnUsage(12, 3));
    assertThat(conversations.messages(subAgent.id())).hasSize(1);
  }
}
