package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * An MCP tool gated through configuration, end to end through the pipeline: tool-runner runs the
 * npm filesystem reference server over stdio ({@link McpFilesystemServer}) with {@code
 * "[files__write_file]": {approval: required}} in its configuration; the scripted model's {@code
 * filer} asks for {@code files__write_file}. The call waits for the person; approved through the
 * feedback endpoint, the file is written once and the run finishes; rejected, it never reaches
 * tool-runner and no file is written. Skipped, saying what is missing, without node or the npm
 * package.
 */
class McpApprovalIT {

  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);

  private final ScriptedModelStack stack = ScriptedModelStack.get();
  private final ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));

  @BeforeEach
  void needsTheServer() {
    assumeTrue(stack.mcpMissing == null, stack.mcpMissing);
  }

  @Test
  void anApprovedWriteFileRunsOnceThroughThePipeline() throws Exception {
    Path file = stack.files.resolve("approved-" + UUID.randomUUID() + ".txt");
    String chatId = api.createChat();
    JsonNode call = approvalRequested(chatId, file, "written after a yes");
    assertThat(call.path("name").asString()).isEqualTo(McpFilesystemServer.WRITE_FILE);
    assertThat(call.path("status").asString()).isEqualTo("awaiting_approval");
    assertThat(file).as("nothing runs before the decision").doesNotExist();

    assertThat(decide(chatId, call, true, null).status()).isEqualTo(202);

    JsonNode details = awaitSuccess(chatId);
    assertThat(Files.readString(file, StandardCharsets.UTF_8)).isEqualTo("written after a yes");
    JsonNode done = details.path("toolCalls").get(0);
    assertThat(done.path("status").asString()).isEqualTo("success");
    assertThat(toolMessages(details)).as("one result, read by the next turn").hasSize(1);
    assertThat(lastWords(details))
        .startsWith("Tool said: ")
        .contains(file.getFileName().toString());
    assertThat(decide(chatId, call, true, null).status())
        .as("a second decision on the call")
        .isEqualTo(409);
  }

  @Test
  void aRejectedWriteFileNeverWrites() {
    Path file = stack.files.resolve("rejected-" + UUID.randomUUID() + ".txt");
    String chatId = api.createChat();
    JsonNode call = approvalRequested(chatId, file, "never written");

    assertThat(decide(chatId, call, false, "not this file").status()).isEqualTo(202);

    JsonNode details = awaitSuccess(chatId);
    assertThat(file).doesNotExist();
    JsonNode rejected = details.path("toolCalls").get(0);
    assertThat(rejected.path("status").asString()).isEqualTo("failed");
    assertThat(rejected.path("latencyMs").isNumber()).as("no tool-runner ran it").isFalse();
    assertThat(lastWords(details)).contains("rejected").contains("not this file");
  }

  /**
   * Asks the filer to write the file; returns its call once the approval request is in the chat.
   */
  private JsonNode approvalRequested(String chatId, Path file, String content) {
    assertThat(api.postMessage(chatId, "[write] " + file + "|" + content).status()).isEqualTo(202);
    String toolCallId =
        await()
            .atMost(RUN_TIMEOUT)
            .pollInterval(Duration.ofMillis(200))
            .until(
                () -> {
                  for (JsonNode m : api.get("/api/chats/" + chatId + "/messages").body()) {
                    if (m.path("toolCallId").isString()) {
                      return m.path("toolCallId").asString();
                    }
                  }
                  return null;
                },
                id -> id != null);
    for (JsonNode call : details(chatId).path("toolCalls")) {
      if (call.path("id").asString().equals(toolCallId)) {
        return call;
      }
    }
    throw new AssertionError("the approval request names no call of the task: " + toolCallId);
  }

  private ChatApi.Response decide(String chatId, JsonNode call, boolean approved, String reason) {
    var body =
        OpenAiWire.JSON
            .createObjectNode()
            .put("type", "approval")
            .put("toolCallId", call.path("id").asString())
            .put("approved", approved);
    if (reason != null) {
      body.put("reason", reason);
    }
    return api.post("/api/chats/" + chatId + "/feedback", body.toString());
  }

  /** The task's details once it ended {@code success} with the filer's last words. */
  private JsonNode awaitSuccess(String chatId) {
    return await()
        .atMost(RUN_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> details(chatId),
            details ->
                details.path("task").path("status").asString().equals("success")
                    && lastWords(details).startsWith("Tool said: "));
  }

  private JsonNode details(String chatId) {
    String taskId = api.get("/api/chats/" + chatId + "/tasks").body().get(0).path("id").asString();
    return api.get("/api/tasks/" + taskId).body();
  }

  private static String lastWords(JsonNode details) {
    JsonNode messages = details.path("messages");
    return messages.path(messages.size() - 1).path("content").asString("");
  }

  private static java.util.List<JsonNode> toolMessages(JsonNode details) {
    return java.util.stream.StreamSupport.stream(details.path("messages").spliterator(), false)
        .filter(m -> m.path("role").asString().equals("tool"))
        .toList();
  }
}
