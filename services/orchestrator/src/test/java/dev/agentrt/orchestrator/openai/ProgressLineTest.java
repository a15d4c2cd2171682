package dev.agentrt.orchestrator.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The streamed progress names the agents a run delegates to. */
class ProgressLineTest {

  @Test
  void aDelegationNamesTheCallerAndTheChildAgent() {
    assertThat(
            ProgressLine.of(
                event(
                    RunEvent.DELEGATION_START,
                    "analyst",
                    RunLedger.data("agent", "researcher", "message", "Research Kafka"))))
        .contains("The analyst asks the researcher: Research Kafka\n");
    assertThat(
            ProgressLine.of(
                event(
                    RunEvent.DELEGATION_END,
                    null,
                    RunLedger.data("agent", "researcher", "status", "success"))))
        .contains("The researcher answered (success).\n");
    assertThat(ProgressLine.of(event(RunEvent.STEP_START, "researcher", RunLedger.data("step", 1))))
        .contains("The researcher thinks (step 1)…\n");
  }

  @Test
  void anApprovalSaysWhatWaitsAndWhoDecided() {
    assertThat(
            ProgressLine.of(
                event(
                    RunEvent.APPROVAL_REQUESTED,
                    "scribe",
                    RunLedger.data("tool", "write_note", "arguments", "{\"title\":\"t\"}"))))
        .contains("The scribe asks to run write_note {\"title\":\"t\"}\n");
    assertThat(
            ProgressLine.of(
                event(
                    RunEvent.APPROVAL_DECIDED,
                    "scribe",
                    RunLedger.data(
                        "tool", "write_note", "approved", false, "by", "ana", "reason", "no"))))
        .contains("write_note rejected by ana: no\n");
  }

  private static RunEvent event(String type, String agent, Map<String, Object> data) {
    return new RunEvent("c/k", "c", 1, type, Instant.now(), "t", "s", agent, data);
  }
}
