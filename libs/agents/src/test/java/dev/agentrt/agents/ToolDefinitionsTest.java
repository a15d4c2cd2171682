package dev.agentrt.agents;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.model.ToolSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

/** The tools shown to the model come from what tool-runner wrote to tool_definitions. */
class ToolDefinitionsTest {

  private static MongoServer server;
  private static MongoClient client;
  private static MongoTemplate mongo;

  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
  private final Clock clock =
      new Clock() {
        @Override
        public java.time.ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return now.get();
        }
      };

  @BeforeAll
  static void start() {
    server = new MongoServer(new MemoryBackend());
    client = MongoClients.create("mongodb://127.0.0.1:" + server.bind().getPort());
    mongo = new MongoTemplate(client, "agentrt");
  }

  @AfterAll
  static void stop() {
    client.close();
    server.shutdownNow();
  }

  @BeforeEach
  void empty() {
    mongo.getDb().drop();
  }

  private static void defined(String name, String description) {
    mongo
        .getCollection(ToolCatalog.DEFINITIONS)
        .insertOne(
            new Document("_id", name)
                .append("description", description)
                .append("inputSchema", "{\"type\":\"object\"}")
                .append("timeoutMs", 30000L)
                .append("idempotent", true)
                .append("source", "mcp:files"));
  }

  @Test
  void showsAskUserAndTheDefinedToolsTheAgentListsIncludingMcpWildcards() {
    defined("search_docs", "Search.");
    defined("read_doc", "Read.");
    defined("files__read_text_file", "Read a file.");
    defined("web__fetch", "Fetch.");
    AgentDefinition agent =
        new AgentDefinition("a", "d", "p", List.of("search_docs", "files__*"), 5, null, null);

    List<ToolSpec> tools = new ToolDefinitions(mongo, clock).forAgent(agent);

    assertThat(tools)
        .extracting(ToolSpec::name)
        .containsExactly("ask_user", "files__read_text_file", "search_docs");
    assertThat(tools.get(1))
        .isEqualTo(new ToolSpec("files__read_text_file", "Read a file.", "{\"type\":\"object\"}"));
  }

  @Test
  void readsTheDefinitionsAgainOnceTheCacheIsOld() {
    AgentDefinition agent = new AgentDefinition("a", "d", "p", List.of("files__*"), 5, null, null);
    ToolDefinitions definitions = new ToolDefinitions(mongo, clock);
    // Nothing written yet (tool-runner not started): not cached, read again next time.
    assertThat(definitions.forAgent(agent)).extracting(ToolSpec::name).containsExactly("ask_user");
    defined("files__read_text_file", "Read a file.");
    assertThat(definitions.forAgent(agent))
        .extracting(ToolSpec::name)
        .containsExactly("ask_user", "files__read_text_file");

    defined("files__write_file", "Write a file.");
    assertThat(definitions.forAgent(agent))
        .extracting(ToolSpec::name)
        .containsExactly("ask_user", "files__read_text_file");
    now.set(now.get().plus(ToolDefinitions.CACHE_FOR).plus(Duration.ofMillis(1)));

    assertThat(definitions.forAgent(agent))
        .extracting(ToolSpec::name)
        .containsExactly("ask_user", "files__read_text_file", "files__write_file");
  }

  @Test
  void aToolGatedByToolRunnerNeedsApprovalForEveryAgentAndAnAgentMayGateItsOwn() {
    defined("search_docs", "Search.");
    mongo
        .getCollection(ToolCatalog.DEFINITIONS)
        .insertOne(
            new Document("_id", "files__write_file")
                .append("description", "Write a file.")
                .append("inputSchema", "{\"type\":\"object\"}")
                .append("source", "mcp:files")
                .append(ToolCatalog.APPROVAL, ToolCatalog.APPROVAL_REQUIRED));
    AgentDefinition plain =
        new AgentDefinition("a", "d", "p", List.of("search_docs", "files__*"), 5, null, null);
    AgentDefinition careful =
        new AgentDefinition(
            "b",
            "d",
            "p",
            List.of("search_docs", "files__*"),
            5,
            null,
            null,
            List.of(),
            List.of("search_docs"));
    ToolDefinitions definitions = new ToolDefinitions(mongo, clock);

    assertThat(definitions.needsApproval(plain, "files__write_file")).isTrue();
    assertThat(definitions.needsApproval(plain, "search_docs")).isFalse();
    assertThat(definitions.needsApproval(careful, "search_docs")).isTrue();
    assertThat(definitions.needsApproval(careful, "ask_user")).isFalse();
  }
}
