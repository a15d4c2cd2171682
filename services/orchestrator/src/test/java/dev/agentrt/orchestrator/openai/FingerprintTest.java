package dev.agentrt.orchestrator.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.orchestrator.openai.Fingerprint.Turn;
import java.util.List;
import org.junit.jupiter.api.Test;

class FingerprintTest {

  @Test
  void theSameTurnsHaveTheSameFingerprintAndAnyChangeAnother() {
    String research =
        Fingerprint.of(
            "alice", List.of(new Turn("user", "Research"), new Turn("assistant", "Which?")));

    assertThat(
            Fingerprint.of(
                "alice", List.of(new Turn("user", "Research"), new Turn("assistant", "Which?"))))
        .isEqualTo(research)
        .hasSize(64);
    assertThat(
            Fingerprint.of(
                "alice", List.of(new Turn("user", "Research"), new Turn("user", "Which?"))))
        .isNotEqualTo(research);
    assertThat(
            Fingerprint.of(
                "alice", List.of(new Turn("user", "Research"), new Turn("assistant", "Which"))))
        .isNotEqualTo(research);
    assertThat(
            Fingerprint.of(
                "alice", List.of(new Turn("assistant", "Which?"), new Turn("user", "Research"))))
        .isNotEqualTo(research);
  }

  @Test
  void twoUsersWithTheSameConversationHaveTwoFingerprints() {
    List<Turn> same = List.of(new Turn("user", "hi"), new Turn("assistant", "Hello!"));
    assertThat(Fingerprint.of("alice", same)).isNotEqualTo(Fingerprint.of("bob", same));
  }

  @Test
  void contentIsLengthPrefixedSoConcatenationsDoNotCollide() {
    assertThat(Fingerprint.of("alice", List.of(new Turn("user", "ab"), new Turn("user", "c"))))
        .isNotEqualTo(
            Fingerprint.of("alice", List.of(new Turn("user", "a"), new Turn("user", "bc"))));
  }
}
