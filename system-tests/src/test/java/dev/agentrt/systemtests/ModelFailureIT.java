package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A model provider that keeps failing, end to end: the services use their real OpenAI-compatible
 * provider against a local server that decides correctly but answers every agent turn with HTTP
 * 500. The turn is retried, then the run ends visibly: sub-agent and task failed, the reason
 * recorded, and a message in the chat. On the scripted-model stack, so its model does not touch the
 * others'.
 */
class ModelFailureIT {

  private static final int ATTEMPTS = ScriptedModelStack.MODEL_ATTEMPTS;

  private final ScriptedModelStack stack = ScriptedModelStack.get();
  private final FakeOpenAiServer provider = stack.model;
  private final RunningServices services = stack.services;

  @Test
  void aModelThatKeepsFailingIsRetriedThenTheRunFailsVisiblyWithAMessageInTheChat() {
    ChatApi api = new ChatApi(services.baseUrl("orchestrator"));
    String chatId = api.createChat();
    int refusedBefore = provider.refusedAgentTurns.get();

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
    assertThat(provider.refusedAgentTurns.get() - refusedBefore)
        .as("the turn was tried %d times", ATTEMPTS)
        .isEqualTo(ATTEMPTS);

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
