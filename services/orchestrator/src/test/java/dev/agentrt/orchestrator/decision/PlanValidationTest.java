package dev.agentrt.orchestrator.decision;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentrt.orchestrator.decision.Decision.Plan;
import dev.agentrt.orchestrator.decision.Decision.Plan.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A plan is refused before anything runs, with the reason in words the model can repair from. */
class PlanValidationTest {

  private final PlanValidation validation =
      new PlanValidation(Set.of("researcher", "writer")::contains, "researcher, writer", 4);

  @Test
  void acceptsADiamondOfKnownAgents() {
    Plan plan =
        plan(
            node("a", "researcher"),
            node("b", "researcher", "a"),
            node("c", "researcher", "a"),
            node("d", "writer", "b", "c"));

    assertThatCode(() -> validation.check(plan)).doesNotThrowAnyException();
  }

  @Test
  void refusesAPlanWithoutNodes() {
    assertThatThrownBy(() -> validation.check(plan()))
        .isInstanceOf(InvalidDecisionException.class)
        .hasMessage("the plan has no node; give it at least one");
  }

  @Test
  void refusesMoreNodesThanAllowed() {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      nodes.add(node("n" + i, "researcher"));
    }

    assertThatThrownBy(() -> validation.check(new Plan(nodes, 0.9, "A plan.")))
        .hasMessageStartingWith("the plan has 5 nodes, more than the 4 allowed");
  }

  @Test
  void refusesTwoNodesWithOneId() {
    assertThatThrownBy(() -> validation.check(plan(node("a", "researcher"), node("a", "writer"))))
        .hasMessageStartingWith("two nodes have the id 'a'");
  }

  @Test
  void refusesAnUnknownAgentAndNamesTheAgentsThereAre() {
    assertThatThrownBy(() -> validation.check(plan(node("a", "poet"))))
        .hasMessage(
            "node 'a' names no agent there is ('poet'); the agents are: researcher, writer");
  }

  @Test
  void refusesADependencyThatIsNotInThePlan() {
    assertThatThrownBy(() -> validation.check(plan(node("w", "writer", "r"))))
        .hasMessage("node 'w' depends on 'r', which is not in the plan");
  }

  @Test
  void refusesACycleAndNamesIt() {
    Plan plan =
        plan(
            node("start", "researcher"),
            node("a", "researcher", "start", "c"),
            node("b", "researcher", "a"),
            node("c", "writer", "b"));

    assertThatThrownBy(() -> validation.check(plan))
        .hasMessageStartingWith("the plan has a cycle: a → c → b → a");
  }

  @Test
  void refusesANodeThatDependsOnItself() {
    assertThatThrownBy(() -> validation.check(plan(node("a", "researcher", "a"))))
        .hasMessageStartingWith("the plan has a cycle: a → a");
  }

  private static Plan plan(Node... nodes) {
    return new Plan(List.of(nodes), 0.9, "A plan.");
  }

  private static Node node(String id, String agent, String... dependsOn) {
    return new Node(id, agent, "Do " + id, List.of(dependsOn));
  }
}
