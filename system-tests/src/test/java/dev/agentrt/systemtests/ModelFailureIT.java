package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A model provider that keeps failing, end to end: the services use their real OpenAI-compatible
 * provider against a local server that decides correctly but refuses agent turns with HTTP 500. The
 * turn is retried, then the run fails visibly (sub-agent and task failed, the reason recorded) and
 * the failed task is re-routed once to the fallback agent (the {@code assistant}): its answer is
 * the chat's one answer, also the reply of the OpenAI-compatible API; when the fallback fails too,
 * the run ends as {@code routing_exhausted} and the answer says so. On the scripted-model stack, so
 * its model does not touch the others'.
 */
class ModelFailureIT {

  private static final int ATTEMPTS = ScriptedModelStack.MODEL_ATTEMPTS;
  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final ScriptedModelStack stack = ScriptedModelStack.get();
  private final FakeOpenAiServer provider = stack.model;
  private final ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));

  @Test
  void aModelThatKeepsFailingIsRetriedThenReroutedOnceThenTheRunEndsAsRoutingExhausted() {
    String chatId = api.createChat();
    int refusedBefore = provider.refusedAgentTurns.get();

    api.postMessage(chatId, "Research Kafka");

    JsonNode answer = awaitTheAnswer(chatId);
    List<JsonNode> tasks = tasks(chatId);
    assertThat(tasks).hasSize(2);
    JsonNode failed = tasks.get(0);
    JsonNode fallback = tasks.get(1);
    assertThat(failed.path("agent").asString()).isEqualTo("researcher");
    assertThat(failed.path("status").asString()).isEqualTo("failed");
    assertThat(failed.path("failureReason").asString()).isEqualTo("model_error");
    assertThat(failed.path("error").asString()).contains("500");
    JsonNode details = api.get("/api/tasks/" + failed.path("id").asString()).body();
    assertThat(details.path("subAgent").path("status").asString()).isEqualTo("failed");
    JsonNode lastMessage = details.path("messages").path(details.path("messages").size() - 1);
    assertThat(lastMessage.path("role").asString()).isEqualTo("system");
    assertThat(lastMessage.path("content").asString()).contains("model_error");

    assertThat(fallback.path("agent").asString()).isEqualTo("assistant");
    assertThat(fallback.path("instruction").asString()).isEqualTo("Research Kafka");
    assertThat(fallback.path("status").asString()).isEqualTo("failed");
    assertThat(fallback.path("routing").path("fallback").asBoolean()).isTrue();
    assertThat(fallback.path("routing").path("reason").asString())
        .startsWith("the researcher failed: ");
    assertThat(provider.refusedAgentTurns.get() - refusedBefore)
        .as("each agent's turn was tried %d times", ATTEMPTS)
        .isEqualTo(2 * ATTEMPTS);

    assertThat(answer.path("taskId").asString())
        .as("the one answer is the fallback's, not the failed task's")
        .isEqualTo(fallback.path("id").asString());
    assertThat(answer.path("content").asString())
        .contains("could not finish")
        .contains("routing_exhausted: the assistant was the last agent to try");
    assertThat(ledgerTypes(chatId))
        .containsSubsequence("run_end", "reroute", "run_end", "routing_exhausted");
  }

  @Test
  void aFailedTaskReroutedToTheFallbackAgentHasItsAnswerAsTheOnlyAnswerAndTheApiReply() {
    ObjectNode request = JSON.createObjectNode().put("model", "agentrt");
    request
        .putArray("messages")
        .addObject()
        .put("role", "user")
        .put("content", "[fallback] Kafka keeps records in topics.");

    ChatApi.Response completion =
        api.post("/v1/chat/completions", JSON.writeValueAsString(request), RUN_TIMEOUT);

    assertThat(completion.status()).isEqualTo(200);
    assertThat(completion.body().path("choices").path(0).path("message").path("content").asString())
        .isEqualTo("Kafka keeps records in topics.");
    String chatId = completion.body().path("chat_id").asString();
    List<JsonNode> tasks = tasks(chatId);
    assertThat(tasks)
        .extracting(t -> t.path("agent").asString(), t -> t.path("status").asString())
        .containsExactly(tuple("researcher", "failed"), tuple("assistant", "success"));
    assertThat(tasks.get(1).path("routing").path("fallback").asBoolean()).isTrue();
    List<JsonNode> messages = messages(chatId);
    assertThat(messages).as("the person's message and one answer").hasSize(2);
    assertThat(messages.get(1).path("taskId").asString())
        .isEqualTo(tasks.get(1).path("id").asString());
    assertThat(ledgerTypes(chatId)).containsOnlyOnce("reroute").doesNotContain("routing_exhausted");
  }

  /** The chat's answer: the finalizer's last write for the message. */
  private JsonNode awaitTheAnswer(String chatId) {
    return await()
        .atMost(RUN_TIMEOUT)
        .until(() -> messages(chatId), messages -> messages.size() == 2)
        .get(1);
  }

  private List<JsonNode> tasks(String chatId) {
    return list(api.get("/api/chats/" + chatId + "/tasks").body());
  }

  private List<JsonNode> messages(String chatId) {
    return list(api.get("/api/chats/" + chatId + "/messages").body());
  }

  private List<String> ledgerTypes(String chatId) {
    return stack.runEvents(chatId).stream().map(e -> e.getString("type")).toList();
  }

  private static List<JsonNode> list(JsonNode array) {
    List<JsonNode> items = new ArrayList<>();
    array.forEach(items::add);
    return items;
  }
}
