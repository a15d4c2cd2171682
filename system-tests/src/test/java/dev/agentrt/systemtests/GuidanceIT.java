package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Guidance ({@code POST /api/chats/{id}/feedback {"type":"guidance","taskId","text"}}) end to end,
 * on the scripted-model stack, whose model keeps the messages of every agent turn: given while the
 * sub-agent's model call is in flight, the text is in the messages of its next turn; given to a
 * sub-agent that completed, it wakes it and its follow-up turn reads it.
 */
class GuidanceIT {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);

  private final ScriptedModelStack stack = ScriptedModelStack.get();
  private final ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));

  @Test
  void guidanceReachesARunningSubAgentsNextTurnAndWakesACompletedOne() {
    String instruction = "[guide] kafka " + UUID.randomUUID();
    ScriptedOpenAiServer.Gate firstTurn = stack.model.holdFirstGuidedTurn();
    String chatId = api.createChat();
    assertThat(api.postMessage(chatId, instruction).status()).isEqualTo(202);
    firstTurn.awaitArrival(RUN_TIMEOUT);
    String taskId = api.get("/api/chats/" + chatId + "/tasks").body().get(0).path("id").asString();

    ChatApi.Response whileRunning = guide(chatId, taskId, "Focus on partitions");
    firstTurn.release();

    assertThat(whileRunning.status()).isEqualTo(202);
    assertThat(whileRunning.body().path("outcome").asString()).isEqualTo("guided");
    awaitLastAnswer(taskId, "Guided: Focus on partitions");
    List<JsonNode> turns = stack.model.agentTurns(instruction);
    assertThat(userMessages(turns.getFirst()))
        .as("the turn in flight was asked before the guidance")
        .doesNotContain("Focus on partitions");
    assertThat(userMessages(turns.get(1))).as("its next turn").contains("Focus on partitions");

    ChatApi.Response afterCompletion = guide(chatId, taskId, "Now about offsets");

    assertThat(afterCompletion.status()).isEqualTo(202);
    awaitLastAnswer(taskId, "Guided: Now about offsets");
    List<JsonNode> after = stack.model.agentTurns(instruction);
    assertThat(userMessages(after.getLast()))
        .as("the follow-up turn reads both")
        .contains("Focus on partitions", "Now about offsets");
    assertThat(after).as("one turn more, woken by the guidance").hasSize(turns.size() + 1);
  }

  private ChatApi.Response guide(String chatId, String taskId, String text) {
    return api.post(
        "/api/chats/" + chatId + "/feedback",
        OpenAiWire.JSON
            .createObjectNode()
            .put("type", "guidance")
            .put("taskId", taskId)
            .put("text", text)
            .toString());
  }

  /**
   * Waits until the task has ended {@code success} and its sub-agent's last words are {@code
   * answer}.
   */
  private void awaitLastAnswer(String taskId, String answer) {
    await()
        .atMost(RUN_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              JsonNode details = api.get("/api/tasks/" + taskId).body();
              JsonNode messages = details.path("messages");
              JsonNode last = messages.path(messages.size() - 1);
              return details.path("task").path("status").asString().equals("success")
                  && last.path("role").asString().equals("assistant")
                  && last.path("content").asString("").equals(answer);
            });
  }

  private static List<String> userMessages(JsonNode messages) {
    return java.util.stream.StreamSupport.stream(messages.spliterator(), false)
        .filter(m -> m.path("role").asString().equals("user"))
        .map(m -> m.path("content").asString(""))
        .toList();
  }
}
