package dev.agentrt.systemtests;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Sorts;
import dev.agentrt.localstack.EmbeddedMongo;
import dev.agentrt.localstack.KafkaBroker;
import dev.agentrt.localstack.Services;
import dev.agentrt.localstack.TopicCreator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * A second stack whose services use their real OpenAI-compatible provider against a {@link
 * FakeOpenAiServer}, started once for the system tests of this JVM that script the model end to end
 * (its model must not touch the offline-model stack's runs). Holds are renewed and swept every
 * second ({@code agentrt.leases.renew-every}), so deadline tests need not wait long; the model is
 * tried {@link #MODEL_ATTEMPTS} times. The agents are the shipped ones and a {@code filer} that
 * lists {@link McpFilesystemServer#WRITE_FILE}, whose server tool-runner runs, rooted at {@link
 * #files}, where node and its npm package are installed ({@link #mcpMissing} says why not).
 */
final class ScriptedModelStack {

  static final int MODEL_ATTEMPTS = 3;

  private static ScriptedModelStack instance;

  final FakeOpenAiServer model;
  final RunningServices services;

  /** The folder the filesystem MCP server writes in. */
  final Path files;

  /** Why tool-runner runs no filesystem MCP server, or null when it does. */
  final @Nullable String mcpMissing;

  private final KafkaBroker kafka;
  private final EmbeddedMongo mongo;
  private final MongoClient client;

  private ScriptedModelStack(
      FakeOpenAiServer model,
      KafkaBroker kafka,
      EmbeddedMongo mongo,
      RunningServices services,
      Path files,
      @Nullable String mcpMissing) {
    this.model = model;
    this.files = files;
    this.mcpMissing = mcpMissing;
    this.kafka = kafka;
    this.mongo = mongo;
    this.services = services;
    this.client = MongoClients.create(mongo.uri());
  }

  static synchronized ScriptedModelStack get() {
    if (instance == null) {
      instance = start();
      Runtime.getRuntime().addShutdownHook(new Thread(instance::stop));
    }
    return instance;
  }

  /** The chat's run events, in order. */
  List<Document> runEvents(String chatId) {
    return client
        .getDatabase("agentrt")
        .getCollection("run_events")
        .find(Filters.eq("chatId", chatId))
        .sort(Sorts.ascending("seq"))
        .into(new ArrayList<>());
  }

  private static ScriptedModelStack start() {
    try {
      FakeOpenAiServer model = new FakeOpenAiServer();
      // Under target/, not /tmp: the broker's data goes with the build it belongs to.
      Path dir =
          Files.createTempDirectory(
              Files.createDirectories(Path.of("target").toAbsolutePath()), "scripted-model");
      Path repoRoot = Path.of(System.getProperty("agentrt.repo.root", ".."));
      Path files = Files.createDirectories(dir.resolve("files"));
      Map<String, String> env =
          new HashMap<>(
              Map.of(
                  "AGENTRT_MODEL_PROVIDER", "openai",
                  "AGENTRT_MODEL_BASE_URL", model.baseUrl(),
                  "AGENTRT_MODEL_NAME", "fake",
                  "AGENTRT_AGENT_LOOP_MODEL_ATTEMPTS", Integer.toString(MODEL_ATTEMPTS),
                  "AGENTRT_AGENT_LOOP_MODEL_BACKOFF", "100ms",
                  "AGENTRT_LEASES_RENEW_EVERY", "1s",
                  "AGENTRT_FINALIZER_MODEL_ATTEMPTS", "2",
                  "AGENTRT_FINALIZER_MODEL_BACKOFF", "100ms"));
      env.put("AGENTRT_AGENTS_FILE", agentsWithFiler(repoRoot, dir).toString());
      String mcpMissing = McpFilesystemServer.missing(repoRoot);
      if (mcpMissing == null) {
        env.put(
            "SPRING_CONFIG_ADDITIONAL_LOCATION",
            "file:" + McpFilesystemServer.configuration(repoRoot, files, dir));
      }
      KafkaBroker kafka = KafkaBroker.start(dir.resolve("kafka"), 0);
      EmbeddedMongo mongo = EmbeddedMongo.start(null, 0);
      TopicCreator.createAll(kafka.bootstrapServers());
      RunningServices services =
          RunningServices.start(
              "scripted-model", Services.ALL, kafka.bootstrapServers(), mongo.uri(), env);
      return new ScriptedModelStack(model, kafka, mongo, services, files, mcpMissing);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The shipped agents file with the {@code filer} agent added, written into {@code dir}. */
  private static Path agentsWithFiler(Path repoRoot, Path dir) throws IOException {
    String shipped =
        Files.readString(repoRoot.resolve("libs/agents/src/main/resources/agents.yml"));
    String filer =
        """
          - name: %s
            description: Writes the file its task names (system tests).
            maxSteps: 3
            tools: [%s]
            systemPrompt: Write the file your task names with %s.
        """
            .formatted(
                FakeOpenAiServer.FILER,
                McpFilesystemServer.WRITE_FILE,
                McpFilesystemServer.WRITE_FILE);
    return Files.writeString(dir.resolve("agents.yml"), shipped.stripTrailing() + "\n" + filer);
  }

  private void stop() {
    client.close();
    services.close();
    kafka.close();
    mongo.close();
    model.close();
  }
}
