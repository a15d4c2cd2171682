package dev.agentrt.model.offline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PhrasesTest {

  @Test
  void subjectsAreSplitOnAndCommasVersusAndAmpersand() {
    assertThat(Phrases.subjects("Research Kafka and MongoDB")).containsExactly("Kafka", "MongoDB");
    assertThat(Phrases.subjects("compare Kafka vs. RabbitMQ, Redis & NATS"))
        .containsExactly("Kafka", "RabbitMQ", "Redis", "NATS");
    assertThat(Phrases.subjects("Compare Kafka versus Pulsar")).containsExactly("Kafka", "Pulsar");
  }

  @Test
  void followUpMarkersResearchVerbsAndFillersAreNotSubjects() {
    assertThat(Phrases.subjects("Also MongoDB")).containsExactly("MongoDB");
    assertThat(Phrases.subjects("What about Redis?")).containsExactly("Redis");
    assertThat(Phrases.subjects("Follow up: research the Outbox pattern please."))
        .containsExactly("Outbox pattern");
    assertThat(Phrases.subjects("tell me about Kafka for me")).containsExactly("Kafka");
    assertThat(Phrases.subjects("Search for Kafka")).containsExactly("Kafka");
    assertThat(Phrases.subjects("Focus on MongoDB instead"))
        .as("guidance steering a run to another subject")
        .containsExactly("MongoDB");
    assertThat(Phrases.subjects("Kafka")).containsExactly("Kafka");
  }

  @Test
  void aRequestWithoutASubjectHasNone() {
    assertThat(Phrases.subjects("Research")).isEmpty();
    assertThat(Phrases.subjects("Research it")).isEmpty();
    assertThat(Phrases.subjects("what about that?")).isEmpty();
    assertThat(Phrases.subjects("")).isEmpty();
  }

  @Test
  void phrasesMatchWholeWordsAtTheStartIgnoringCase() {
    assertThat(Phrases.isGreeting("Hello there!")).isTrue();
    assertThat(Phrases.isGreeting("Hierarchies")).isFalse();
    assertThat(Phrases.isFollowUp("AND Redis?")).isTrue();
    assertThat(Phrases.isFollowUp("Android?")).isFalse();
    assertThat(Phrases.isResearchRequest("  look up Kafka")).isTrue();
    assertThat(Phrases.isResearchRequest("Findings are in")).isFalse();
  }

  @Test
  void subjectsAreJoinedAsInASentence() {
    assertThat(Phrases.join(List.of("Kafka"))).isEqualTo("Kafka");
    assertThat(Phrases.join(List.of("Kafka", "MongoDB"))).isEqualTo("Kafka and MongoDB");
    assertThat(Phrases.join(List.of("Kafka", "MongoDB", "Redis")))
        .isEqualTo("Kafka, MongoDB and Redis");
  }
}
