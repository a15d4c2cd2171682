package dev.agentrt.toolrunner.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.agents.ToolCatalog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;

/** tool_definitions follows the registry: written whole, and again when a source changes. */
class ToolDefinitionsWriterTest {

  private MongoServer server;
  private MongoClient client;
  private MongoTemplate mongo;

  @BeforeEach
  void start() {
    server = new MongoServer(new MemoryBackend());
    client = MongoClients.create("mongodb://127.0.0.1:" + server.bind().getPort());
    mongo = new MongoTemplate(client, "agentrt");
  }

  @AfterEach
  void stop() {
    client.close();
    server.shutdownNow();
  }

  @Test
  void writesEveryToolAndFollowsChanges() {
    ToolSettings settings =
        new ToolSettings(
            Duration.ofSeconds(30),
            Map.of("calculator", new ToolSettings.Override(Duration.ofSeconds(5), false, null)));
    List<RegisteredTool> extra = new ArrayList<>();
    Runnable[] changed = new Runnable[1];
    ToolSource changing =
        new ToolSource() {
          @Override
          public List<RegisteredTool> tools() {
            return List.copyOf(extra);
          }

          @Override
          public void onChange(Runnable listener) {
            changed[0] = listener;
          }
        };
    Toolbox toolbox =
        new Toolbox(
            List.of(
                new RuntimeTools(),
                new BuiltInTools(List.of(new Calculator()), settings),
                changing));
    ToolDefinitionsWriter writer = new ToolDefinitionsWriter(toolbox, mongo);

    writer.onStart();

    assertThat(ids()).containsExactlyInAnyOrder("ask_user", "calculator");
    Document calculator = definition("calculator");
    assertThat(calculator.getString("description")).startsWith("Evaluate an arithmetic expression");
    assertThat(calculator.getString("inputSchema")).contains("\"expression\"");
    assertThat(calculator.getString("outputSchema")).contains("\"result\"");
    assertThat(calculator.getLong("timeoutMs")).isEqualTo(5000L);
    assertThat(calculator.getBoolean("idempotent")).isFalse();
    assertThat(calculator.getString("source")).isEqualTo("built-in");
    assertThat(definition("ask_user").getString("source")).isEqualTo("runtime");

    extra.addAll(
        new BuiltInTools(List.of(new CurrentTime(java.time.Clock.systemUTC())), settings).tools());
    changed[0].run();
    assertThat(ids()).containsExactlyInAnyOrder("ask_user", "calculator", "current_time");

    extra.clear();
    changed[0].run();
    assertThat(ids()).containsExactlyInAnyOrder("ask_user", "calculator");
  }

  @Test
  void saysWhichToolsWaitForApproval() {
    ToolSettings settings =
        new ToolSettings(
            Duration.ofSeconds(30),
            Map.of(
                "calculator",
                new ToolSettings.Override(null, null, ToolSettings.Approval.required),
                "write_note",
                new ToolSettings.Override(null, null, ToolSettings.Approval.none)));
    Toolbox toolbox =
        new Toolbox(
            List.of(
                new RuntimeTools(),
                new BuiltInTools(
                    List.of(
                        new Calculator(),
                        new CurrentTime(java.time.Clock.systemUTC()),
                        new WriteNote(java.nio.file.Path.of("target/notes"))),
                    settings)));

    new ToolDefinitionsWriter(toolbox, mongo).onStart();

    assertThat(definition("calculator").getString("approval")).isEqualTo("required");
    assertThat(definition("current_time").getString("approval")).isEqualTo("none");
    assertThat(definition("write_note").getString("approval")).isEqualTo("none");
    assertThat(definition("ask_user").getString("approval")).isEqualTo("none");
    assertThat(
            new BuiltInTools(
                    List.of(new WriteNote(java.nio.file.Path.of("target/notes"))),
                    ToolSettings.defaults(Duration.ofSeconds(30)))
                .tools()
                .getFirst()
                .approvalRequired())
        .as("write_note waits for approval unless configuration says otherwise")
        .isTrue();
  }

  private List<String> ids() {
    List<String> ids = new ArrayList<>();
    mongo.getCollection(ToolCatalog.DEFINITIONS).find().forEach(d -> ids.add(d.getString("_id")));
    return ids;
  }

  private Document definition(String name) {
    return mongo.getCollection(ToolCatalog.DEFINITIONS).find(new Document("_id", name)).first();
  }
}
