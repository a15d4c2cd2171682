package dev.agentrt.orchestrator.decision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The model's reply read as a decision, or refused with a reason the model can act on. */
class DecisionReaderTest {

  private static final String SURE = "\"confidence\":0.82,\"reason\":\"It asks for research.\"";

  private final DecisionReader reader = new DecisionReader();

  @Test
  void readsEachOfTheThreeActions() throws InvalidDecisionException {
    assertThat(reader.read("{\"action\":\"answer\",\"answer\":\"Hi\"}"))
        .isEqualTo(new Decision.Answer("Hi"));
    assertThat(
            reader.read(
                "{\"action\":\"new_task\",\"agent\":\"researcher\",\"instruction\":\"Research"
                    + " Kafka\","
                    + SURE
                    + "}"))
        .isEqualTo(
            new Decision.NewTask("researcher", "Research Kafka", 0.82, "It asks for research."));
    assertThat(
            reader.read(
                "{\"action\":\"reactivate\",\"subAgentId\":\"s-1\",\"message\":\"More\","
                    + SURE
                    + "}"))
        .isEqualTo(new Decision.Reactivate("s-1", "More", 0.82, "It asks for research."));
  }

  @Test
  void refusesATaskWithoutConfidenceOrReasonNamingTheField() {
    assertThatThrownBy(
            () ->
                reader.read(
                    "{\"action\":\"new_task\",\"agent\":\"researcher\",\"instruction\":\"x\","
                        + "\"reason\":\"r\"}"))
        .isInstanceOf(InvalidDecisionException.class)
        .hasMessageContaining("field 'confidence'");
    assertThatThrownBy(
            () ->
                reader.read(
                    "{\"action\":\"reactivate\",\"subAgentId\":\"s-1\",\"message\":\"x\","
                        + "\"confidence\":0.5}"))
        .isInstanceOf(InvalidDecisionException.class)
        .hasMessageContaining("field 'reason'");
    assertThatThrownBy(
            () ->
                reader.read(
                    "{\"action\":\"plan\",\"nodes\":[{\"id\":\"a\",\"agent\":\"researcher\","
                        + "\"instruction\":\"x\"}],\"confidence\":-0.1,\"reason\":\"r\"}"))
        .isInstanceOf(InvalidDecisionException.class)
        .hasMessageContaining("field 'confidence'");
  }

  @Test
  void readsAPlanWithItsNodesInOrder() throws InvalidDecisionException {
    assertThat(
            reader.read(
                """
                {"action":"plan","nodes":[
                  {"id":"r1","agent":"researcher","instruction":"Research Kafka"},
                  {"id":"w","agent":"writer","instruction":"Write","dependsOn":["r1"]}],
                 "confidence":0.82,"reason":"It asks for research."}"""))
        .isEqualTo(
            new Decision.Plan(
                List.of(
                    new Decision.Plan.Node("r1", "researcher", "Research Kafka", List.of()),
                    new Decision.Plan.Node("w", "writer", "Write", List.of("r1"))),
                0.82,
                "It asks for research."));
  }

  @Test
  void refusesAPlanNodeIdThatCouldNotNameANode() {
    assertThatThrownBy(
            () ->
                reader.read(
                    "{\"action\":\"plan\",\"nodes\":[{\"id\":\"a.b\",\"agent\":\"researcher\","
                        + "\"instruction\":\"x\"}],"
                        + SURE
                        + "}"))
        .isInstanceOf(InvalidDecisionException.class)
        .hasMessageContaining("field 'nodes.0.id'");
  }

  @Test
  void readsTheJsonInsideAMarkdownCodeFence() throws InvalidDecisionException {
    assertThat(reader.read("```json\n{\"action\":\"answer\",\"answer\":\"Hi\"}\n```"))
        .isEqualTo(new Decision.Answer("Hi"));
  }

  @Test
  void namesTheMissingFieldOfTheChosenAction() {
    assertThatThrownBy(() -> reader.read("{\"action\":\"new_task\",\"agent\":\"researcher\"}"))
        .isInstanceOf(InvalidDecisionException.class)
        .hasMessageContaining("instruction");
  }

  @Test
  void refusesFieldsThatBelongToAnotherAction() {
    assertThatThrownBy(
            () -> reader.read("{\"action\":\"answer\",\"answer\":\"Hi\",\"agent\":\"researcher\"}"))
        .isInstanceOf(InvalidDecisionException.class)
        .hasMessageContaining("agent");
  }

  @Test
  void refusesAnUnknownAction() {
    assertThatThrownBy(() -> reader.read("{\"action\":\"sing\"}"))
        .isInstanceOf(InvalidDecisionException.class)
        .hasMessage("field 'action' must be one of answer, new_task, plan, reactivate");
  }

  @Test
  void refusesTextThatIsNotJson() {
    assertThatThrownBy(() -> reader.read("I will research Kafka."))
        .isInstanceOf(InvalidDecisionException.class)
        .hasMessageStartingWith("the reply is not JSON");
    assertThatThrownBy(() -> reader.read("  "))
        .isInstanceOf(InvalidDecisionException.class)
        .hasMessage("the reply was empty");
    assertThatThrownBy(() -> reader.read("[1,2]"))
        .isInstanceOf(InvalidDecisionException.class)
        .hasMessage("the reply is not a JSON object");
  }
}
