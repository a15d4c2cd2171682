package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Every run limit triggered by a scripted model through the real provider, end to end: the task
 * fails with the limit's reason, the run events say so, and the chat gets a message that names the
 * limit and what was done so far. A run stopped by its limits is not re-routed to the fallback
 * agent (that run would spend past them): the failed task's answer is the chat's. Per-chat limits
 * keep each run short.
 */
class RunLimitsIT {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);

  private final ScriptedModelStack stack = ScriptedModelStack.get();
  private final ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));

  @Test
  void theChatsStepLimitStopsARunThatNeverAnswers() {
    String chatId = chatWithLimits("{\"maxSteps\":2}");

    api.postMessage(chatId, "[loop] Research everything");

    JsonNode task = awaitFailed(chatId);
    assertThat(runEnd(chatId).getString("reason")).isEqualTo("step_limit_exceeded");
    assertThat(assistantTurns(task)).isEqualTo(2);
    assertThat(answerOf(chatId, task))
        .contains("Stopped by the step limit: 2 model turns")
        .contains("Done so far: 2 model turn(s), 2 tool call(s) (search_docs ×2)");
  }

  @Test
  void theTokenBudgetWarnsThenStopsTheRunAndTheLastTurnsCallsNeverRun() {
    String chatId = chatWithLimits("{\"maxTokens\":50}"); // each turn uses 30: warn at 45

    api.postMessage(chatId, "[loop] Research everything");

    JsonNode task = awaitFailed(chatId);
    assertThat(runEnd(chatId).getString("reason")).isEqualTo("budget_exceeded");
    assertThat(types(chatId)).containsSubsequence("budget_warning", "error", "run_end");
    JsonNode details = api.get("/api/tasks/" + task.path("id").asString()).body();
    List<String> statuses = new ArrayList<>();
    details.path("toolCalls").forEach(c -> statuses.add(c.path("status").asString()));
    assertThat(statuses).containsExactly("success", "failed");
    assertThat(answerOf(chatId, task)).contains("Stopped by the token budget: 60 of 50 tokens");
  }

  @Test
  void theDeadlineEndsARunWhoseModelCallHangsWithNoEventToWakeIt() {
    String chatId = chatWithLimits("{\"deadlineSeconds\":2}");

    api.postMessage(chatId, "[hang] Research slowly");

    JsonNode task = awaitFailed(chatId);
    assertThat(runEnd(chatId).getString("reason")).isEqualTo("timeout");
    assertThat(assistantTurns(task))
        .as("ended by the sweeper while the model call was still held")
        .isZero();
    assertThat(answerOf(chatId, task)).contains("Stopped by the deadline");
  }

  @Test
  void theSameCallWithTheSameResultIsPointedOutThenStopsTheRun() {
    String chatId = api.createChat();

    api.postMessage(chatId, "[repeat] Read about Kafka");

    JsonNode task = awaitFailed(chatId);
    assertThat(runEnd(chatId).getString("reason")).isEqualTo("stagnated");
    JsonNode details = api.get("/api/tasks/" + task.path("id").asString()).body();
    List<String> userMessages = new ArrayList<>();
    details
        .path("messages")
        .forEach(
            m -> {
              if (m.path("role").asString().equals("user")) {
                userMessages.add(m.path("content").asString());
              }
            });
    assertThat(userMessages).anyMatch(c -> c.startsWith("You are repeating yourself"));
    assertThat(assistantTurns(task)).isEqualTo(4);
    assertThat(answerOf(chatId, task)).contains("Stopped for repeating itself");
  }

  @Test
  void limitsThatAreNotPositiveAreRefusedWithAReason() {
    ChatApi.Response refused = api.post("/api/chats", "{\"limits\":{\"maxSteps\":0}}");

    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.body().path("detail").asString()).contains("limits.maxSteps");
  }

  private String chatWithLimits(String limits) {
    ChatApi.Response created = api.post("/api/chats", "{\"limits\":" + limits + "}");
    assertThat(created.status()).isEqualTo(201);
    return created.body().path("id").asString();
  }

  private JsonNode awaitFailed(String chatId) {
    return await()
        .atMost(RUN_TIMEOUT)
        .until(
            () -> api.get("/api/chats/" + chatId + "/tasks").body(),
            tasks -> tasks.size() == 1 && tasks.get(0).path("status").asString().equals("failed"))
        .get(0);
  }

  private int assistantTurns(JsonNode task) {
    JsonNode details = api.get("/api/tasks/" + task.path("id").asString()).body();
    int turns = 0;
    for (JsonNode m : details.path("messages")) {
      turns += m.path("role").asString().equals("assistant") ? 1 : 0;
    }
    return turns;
  }

  /**
   * The final message the finalizer posts for the failed task: its own, not a re-route's (a
   * re-route would have been started before it, and the answer would be the fallback task's).
   */
  private String answerOf(String chatId, JsonNode task) {
    JsonNode answer =
        await()
            .atMost(RUN_TIMEOUT)
            .until(() -> api.get("/api/chats/" + chatId + "/messages").body(), m -> m.size() == 2)
            .get(1);
    assertThat(answer.path("taskId").asString()).isEqualTo(task.path("id").asString());
    assertThat(api.get("/api/chats/" + chatId + "/tasks").body()).as("not re-routed").hasSize(1);
    assertThat(types(chatId)).doesNotContain("reroute", "routing_exhausted");
    assertThat(task.path("failureReason").asString()).isEqualTo(runEnd(chatId).getString("reason"));
    return answer.path("content").asString();
  }

  private Document runEnd(String chatId) {
    return await()
        .atMost(RUN_TIMEOUT)
        .until(
            () ->
                stack.runEvents(chatId).stream()
                    .filter(e -> e.getString("type").equals("run_end"))
                    .map(e -> e.get("data", Document.class))
                    .findFirst()
                    .orElse(null),
            end -> end != null);
  }

  private List<String> types(String chatId) {
    return stack.runEvents(chatId).stream().map(e -> e.getString("type")).toList();
  }
}
