package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An orchestrator with API keys (a second copy beside the stack's, same broker and database): each
 * user's official openai client continues only that user's chats ({@code
 * src/test/js/openai-users.mjs}), and the web UI asks for a key and works with it ({@code
 * src/test/js/browser-ui.mjs} with a key).
 */
class UsersIT {

  private static final String ALICE = "alice-key-0123456789abcdef";
  private static final String BOB = "bob-key-0123456789abcdef";
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

  private static RunningServices keyed;

  @BeforeAll
  static void start() {
    keyed =
        EmbeddedStack.get()
            .startCopies(
                "users",
                List.of("orchestrator"),
                Map.of("AGENTRT_API_KEYS", "alice=" + ALICE + ",bob=" + BOB));
  }

  @AfterAll
  static void stop() {
    if (keyed != null) {
      keyed.close();
    }
  }

  @Test
  void eachUsersOpenAiClientContinuesOnlyThatUsersChats() {
    NodeScript.assumeInstalled("openai");

    NodeScript.Result result =
        NodeScript.run(
            Duration.ofMinutes(5), "openai-users.mjs", keyed.baseUrl("orchestrator"), ALICE, BOB);

    assertThat(result.exitStatus()).as(result.output()).isZero();
    assertThat(result.output()).contains("OK");
  }

  @Test
  void theWebUiAsksForAKeyAndWorksWithIt() throws Exception {
    NodeScript.assumeInstalled("playwright-core");
    NodeScript.assumeProgram(CHROMIUM, ".ci/run installs it, or apt-get install chromium");
    Path screenshots =
        Path.of(System.getProperty("agentrt.repo.root", ".."), "system-tests/target/browser-key");

    NodeScript.Result result =
        NodeScript.run(
            Duration.ofMinutes(5),
            "browser-ui.mjs",
            keyed.baseUrl("orchestrator"),
            screenshots.toAbsolutePath().toString(),
            ALICE);

    assertThat(result.exitStatus()).as(result.output()).isZero();
    assertThat(result.output())
        .contains("asked for the API key")
        .contains("the final answer arrived");
  }
}
