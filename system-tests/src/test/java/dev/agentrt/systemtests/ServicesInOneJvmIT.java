package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.localstack.Services;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The six services in one JVM, as {@code ./run.sh} runs them by default ({@code ServicesHost}):
 * each with its own configuration, auto-configurations, static content and log file, and together
 * the whole pipeline, a person's message to the sub-agent's answer in the chat.
 */
class ServicesInOneJvmIT {

  private static final Map<String, String> APPLICATION_CLASSES =
      Map.of(
          "orchestrator", "OrchestratorApplication",
          "agent-init", "AgentInitApplication",
          "agent-loop", "AgentLoopApplication",
          "tool-runner", "ToolRunnerApplication",
          "finalizer", "FinalizerApplication",
          "notifier", "NotifierApplication");

  @TempDir static Path dataDir;

  private static OfflineModelStack stack;

  @BeforeAll
  static void startStack() {
    stack = OfflineModelStack.startInOneJvm("one-jvm", dataDir);
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void aResearchRunGoesThroughAllSixServicesToItsAnswer() {
    ChatApi api = new ChatApi(stack.services.baseUrl("orchestrator"));
    String chatId = api.createChat();
    assertThat(api.postMessage(chatId, "Research Kafka and MongoDB").status()).isEqualTo(202);

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(stack.answers())
                    .singleElement()
                    .satisfies(answer -> assertThat(answer.getString("chatId")).isEqualTo(chatId))
                    .satisfies(
                        answer -> assertThat(answer.getString("content")).contains("Kafka")));
    assertThat(stack.statuses()).isEqualTo(Map.of("success", 1L));
  }

  @Test
  void eachServiceLogsToItsOwnFile() throws IOException {
    for (String service : Services.ALL) {
      String log = Files.readString(stack.services.logFile(service));
      assertThat(log).as(service).contains("Started " + APPLICATION_CLASSES.get(service));
      APPLICATION_CLASSES.forEach(
          (other, application) -> {
            if (!other.equals(service)) {
              assertThat(log).as(service).doesNotContain("Started " + application);
            }
          });
    }
  }

  @Test
  void onlyTheOrchestratorHasItsUiApiDocsAndSecurity() throws Exception {
    for (String service : List.of("agent-init", "agent-loop", "tool-runner")) {
      assertThat(status(service, "/")).as(service + " /").isEqualTo(404);
      assertThat(status(service, "/api/openapi")).as(service + " API docs").isEqualTo(404);
      // Spring Security, had it been configured here, would answer 401 to a call without a key
      assertThat(status(service, "/actuator/prometheus")).as(service + " metrics").isEqualTo(200);
    }
    assertThat(status("orchestrator", "/")).isEqualTo(200);
    assertThat(status("orchestrator", "/api/openapi")).isEqualTo(200);
  }

  private static int status(String service, String path) throws Exception {
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(
              HttpRequest.newBuilder(URI.create(stack.services.baseUrl(service) + path)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    }
  }
}
