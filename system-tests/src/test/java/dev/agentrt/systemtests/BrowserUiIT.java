package dev.agentrt.systemtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web UI in a real browser (Debian's Chromium driven by playwright-core, {@code
 * src/test/js/browser-ui.mjs}) against the whole stack on the offline model: create a chat, ask for
 * research, watch the live activity, answer the researcher's question, see the final answer
 * rendered; cancel a task, approve and reject notes, guide a running agent, watch a plan run as a
 * graph and open a node's task, pick a question's option, at desktop and phone widths; and, on a
 * stack of its own whose model is slow enough to catch a plan running, cancel a plan from its
 * graph. Screenshots are kept in {@code system-tests/target/browser/}.
 */
class BrowserUiIT {

  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path SCREENSHOTS =
      Path.of(System.getProperty("agentrt.repo.root", ".."), "system-tests/target/browser");

  /**
   * Each offline model call takes this long on the plan-cancelling stack: a report's researchers
   * need three calls each, so its plan runs for seconds after its graph appears.
   */
  private static final Duration SLOW_MODEL = Duration.ofSeconds(2);

  @Test
  void aPersonAsksForResearchAnswersTheQuestionAndReadsTheAnswer() throws Exception {
    NodeScript.assumeInstalled("playwright-core");
    NodeScript.assumeProgram(CHROMIUM, ".ci/run installs it, or apt-get install chromium");
    String baseUrl = EmbeddedStack.get().services.baseUrl("orchestrator");

    NodeScript.Result result =
        NodeScript.run(
            Duration.ofMinutes(5),
            "browser-ui.mjs",
            baseUrl,
            SCREENSHOTS.toAbsolutePath().toString());

    assertThat(result.exitStatus()).as(result.output()).isZero();
    assertThat(result.output())
        .contains(
            "the final answer arrived",
            "a report is a plan drawn as a graph",
            "a question with options shows them as buttons",
            "a running analyst is guided");
    assertThat(Files.size(SCREENSHOTS.resolve("web-ui.png"))).isPositive();
    assertThat(Files.size(SCREENSHOTS.resolve("plan-phone.png"))).isPositive();
  }

  @Test
  void aRunningPlanIsCancelledFromItsGraph(@TempDir Path dataDir) throws Exception {
    NodeScript.assumeInstalled("playwright-core");
    NodeScript.assumeProgram(CHROMIUM, ".ci/run installs it, or apt-get install chromium");
    try (OfflineModelStack stack =
        OfflineModelStack.start("browser-plan-cancel", dataDir, SLOW_MODEL)) {
      NodeScript.Result result =
          NodeScript.run(
              Duration.ofMinutes(3),
              "browser-plan-cancel.mjs",
              stack.services.baseUrl("orchestrator"),
              SCREENSHOTS.toAbsolutePath().toString());

      assertThat(result.exitStatus()).as(result.output()).isZero();
      assertThat(result.output()).contains("the plan was cancelled from its graph");
    }
  }
}
