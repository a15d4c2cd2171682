package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The web UI in a real browser (Debian's Chromium driven by playwright-core, {@code
 * src/test/js/browser-ui.mjs}) against the whole stack on the offline model: create a chat, ask for
 * research, watch the live activity, answer the researcher's question, see the final answer
 * rendered. Screenshots are kept in {@code system-tests/target/browser/}.
 */
class BrowserUiIT {

  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

  @Test
  void aPersonAsksForResearchAnswersTheQuestionAndReadsTheAnswer() throws Exception {
    NodeScript.assumeInstalled("playwright-core");
    NodeScript.assumeProgram(CHROMIUM, ".ci/run installs it, or apt-get install chromium");
    String baseUrl = EmbeddedStack.get().services.baseUrl("orchestrator");
    Path screenshots =
        Path.of(System.getProperty("agentrt.repo.root", ".."), "system-tests/target/browser");

    NodeScript.Result result =
        NodeScript.run(
            Duration.ofMinutes(5),
            "browser-ui.mjs",
            baseUrl,
            screenshots.toAbsolutePath().toString());

    assertThat(result.exitStatus()).as(result.output()).isZero();
    assertThat(result.output()).contains("the final answer arrived");
    assertThat(Files.size(screenshots.resolve("web-ui.png"))).isPositive();
  }
}
