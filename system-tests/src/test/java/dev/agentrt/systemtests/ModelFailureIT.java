package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.localstack.EmbeddedMongo;
import dev.agentrt.localstack.KafkaBroker;
import dev.agentrt.localstack.TopicCreator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A model provider that keeps failing, end to end: the services use their real OpenAI-compatible
 * provider against a local server that decides correctly but answers every agent turn with HTTP
 * 500. The turn is retried, then the run ends visibly: sub-agent and task failed, the reason
 * recorded, and a message in the chat. A stack of its own, so its model does not touch the others'.
 */
class ModelFailureIT {

  private static final int ATTEMPTS = 3;

  @TempDir static Path dataDir;

  private static FakeOpenAiServer provider;
  private static KafkaBroker kafka;
  private static EmbeddedMongo mongo;
  private static RunningServices services;

  @BeforeAll
  static void startStackWithAFailingProvider() {
    provider = new FakeOpenAiServer();
    kafka = KafkaBroker.start(dataDir.resolve("kafka"), 0);
    mongo = EmbeddedMongo.start(null, 0);
    TopicCreator.createAll(kafka.bootstrapServers());
    services =
        RunningServices.start(
            "model-failure",
            List.of("orchestrator", "agent-init", "agent-loop", "finalizer"),
            kafka.bootstrapServers(),
            mongo.uri(),
            Map.of(
                "AGENTRT_MODEL_PROVIDER", "openai",
                "AGENTRT_MODEL_BASE_URL", provider.baseUrl(),
                "AGENTRT_MODEL_NAME", "fake",
                "AGENTRT_AGENT_LOOP_MODEL_ATTEMPTS", Integer.toString(ATTEMPTS),
                "AGENTRT_AGENT_LOOP_MODEL_BACKOFF", "100ms",
                "AGENTRT_FINALIZER_MODEL_ATTEMPTS", "2",
                "AGENTRT_FINALIZER_MODEL_BACKOFF", "100ms"));
  }

  @AfterAll
  static void stopStack() {
    if (services != null) {
      services.close();
    }
    if (kafka != null) {
      kafka.close();
    }
    if (mongo != null) {
      mongo.close();
    }
    if (provider != null) {
      provider.close();
    }
  }

  @Test
  void aModelThatKeepsFailingIsRetriedThenTheRunFailsVisiblyWithAMessageInTheChat() {
    ChatApi api = new ChatApi(services.baseUrl("orchestrator"));
    String chatId = api.createChat();

    api.postMessage(chatId, "Research Kafka");

    JsonNode task =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> api.get("/api/chats/" + chatId + "/tasks").body(),
                tasks ->
                    tasks.size() == 1 && tasks.get(0).path("status").asString().equals("failed"))
            .get(0);
    assertThat(task.path("error").asString()).contains("500");
    assertThat(provider.refusedAgentTurns)
        .as("the turn was tried %d times", ATTEMPTS)
        .hasValue(ATTEMPTS);

    JsonNode details = api.get("/api/tasks/" + task.path("id").asString()).body();
    assertThat(details.path("subAgent").path("status").asString()).isEqualTo("failed");
    JsonNode lastMessage = details.path("messages").path(details.path("messages").size() - 1);
    assertThat(lastMessage.path("role").asString()).isEqualTo("system");
    assertThat(lastMessage.path("content").asString()).contains("model_error");

    JsonNode answer =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> api.get("/api/chats/" + chatId + "/messages").body(),
                messages -> messages.size() == 2)
            .get(1);
    assertThat(answer.path("taskId").asString()).isEqualTo(task.path("id").asString());
    assertThat(answer.path("content").asString()).contains("could not finish");
  }
}
