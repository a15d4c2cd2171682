package dev.agentrt.agents;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AskUserTest {

  @Test
  void aQuestionWithOptionsEndsWithThem() {
    String arguments = "{\"question\":\"Which one?\",\"options\":[\"Kafka\",\" MongoDB \"]}";

    assertThat(AskUser.options(arguments)).containsExactly("Kafka", "MongoDB");
    assertThat(AskUser.question(arguments, null))
        .isEqualTo("Which one? Choose one of: Kafka, MongoDB.");
  }

  @Test
  void anOpenQuestionIsAsAskedAndBrokenArgumentsFallBackToTheContent() {
    assertThat(AskUser.question("{\"question\":\"What?\"}", "ignored")).isEqualTo("What?");
    assertThat(AskUser.options("{\"question\":\"What?\"}")).isEmpty();
    assertThat(AskUser.question("not json", "Tell me more")).isEqualTo("Tell me more");
    assertThat(AskUser.question("{}", null)).isEqualTo("Could you tell me more?");
  }
}
