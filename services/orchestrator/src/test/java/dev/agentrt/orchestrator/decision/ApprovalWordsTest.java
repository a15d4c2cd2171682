package dev.agentrt.orchestrator.decision;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ApprovalWordsTest {

  @Test
  void readsApprovalsRejectionsWithTheirReasonAndNothingElse() {
    for (String yes : List.of("approve", "Approved!", " yes ", "OK", "go ahead.")) {
      assertThat(ApprovalWords.read(yes)).as(yes).contains(new ApprovalWords.Verdict(true, null));
    }
    assertThat(ApprovalWords.read("reject")).contains(new ApprovalWords.Verdict(false, null));
    assertThat(ApprovalWords.read("Reject: not today"))
        .contains(new ApprovalWords.Verdict(false, "not today"));
    assertThat(ApprovalWords.read("no - the title is wrong"))
        .contains(new ApprovalWords.Verdict(false, "the title is wrong"));
    for (String other :
        List.of("Research Kafka", "yesterday's news", "nothing", "approve it later?")) {
      assertThat(ApprovalWords.read(other)).as(other).isEmpty();
    }
  }
}
