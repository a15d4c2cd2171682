package dev.agentrt.orchestrator.decision;

import dev.agentrt.orchestrator.decision.Decision.Plan;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What a plan must be before anything runs, beyond its schema: at least one node and at most {@code
 * maxNodes}, unique node ids, known agents, dependencies that exist, and no cycle. Each refusal
 * names what is wrong in words the model can repair from.
 */
final class PlanValidation {

  private final Predicate<String> knownAgent;
  private final String agentNames;
  private final int maxNodes;

  /**
   * @param agentNames the agents there are, as the refusal of an unknown one lists them
   */
  PlanValidation(Predicate<String> knownAgent, String agentNames, int maxNodes) {
    this.knownAgent = knownAgent;
    this.agentNames = agentNames;
    this.maxNodes = maxNodes;
  }

  void check(Plan plan) throws InvalidDecisionException {
    List<Plan.Node> nodes = plan.nodes();
    if (nodes.isEmpty()) {
      throw new InvalidDecisionException("the plan has no node; give it at least one");
    }
    if (nodes.size() > maxNodes) {
      throw new InvalidDecisionException(
          "the plan has "
              + nodes.size()
              + " nodes, more than the "
              + maxNodes
              + " allowed; do the work in fewer, larger tasks");
    }
    Map<String, Plan.Node> byId = new LinkedHashMap<>();
    for (Plan.Node node : nodes) {
      if (byId.putIfAbsent(node.id(), node) != null) {
        throw new InvalidDecisionException(
            "two nodes have the id '" + node.id() + "'; every node needs an id of its own");
      }
      if (node.instruction().isBlank()) {
        throw new InvalidDecisionException("node '" + node.id() + "' has a blank instruction");
      }
      if (!knownAgent.test(node.agent())) {
        throw new InvalidDecisionException(
            "node '"
                + node.id()
                + "' names no agent there is ('"
                + node.agent()
                + "'); the agents are: "
                + agentNames);
      }
    }
    for (Plan.Node node : nodes) {
      for (String dependency : node.dependsOn()) {
        if (!byId.containsKey(dependency)) {
          throw new InvalidDecisionException(
              "node '" + node.id() + "' depends on '" + dependency + "', which is not in the plan");
        }
      }
    }
    Optional<List<String>> cycle = cycle(byId);
    if (cycle.isPresent()) {
      throw new InvalidDecisionException(
          "the plan has a cycle: "
              + String.join(" → ", cycle.get())
              + "; a node cannot wait, even through others, for itself");
    }
  }

  /** A cycle of dependencies, its first node repeated at its end; empty when there is none. */
  private static Optional<List<String>> cycle(Map<String, Plan.Node> byId) {
    Set<String> done = new HashSet<>();
    for (String start : byId.keySet()) {
      Optional<List<String>> found = cycleFrom(start, byId, new ArrayList<>(), done);
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }

  /** Depth first along dependencies, {@code path} the nodes being visited, in order. */
  private static Optional<List<String>> cycleFrom(
      String id, Map<String, Plan.Node> byId, List<String> path, Set<String> done) {
    int onPath = path.indexOf(id);
    if (onPath >= 0) {
      List<String> cycle = new ArrayList<>(path.subList(onPath, path.size()));
      cycle.add(id);
      return Optional.of(cycle);
    }
    if (done.contains(id)) {
      return Optional.empty();
    }
    path.add(id);
    for (String dependency : byId.get(id).dependsOn()) {
      Optional<List<String>> found = cycleFrom(dependency, byId, path, done);
      if (found.isPresent()) {
        return found;
      }
    }
    path.removeLast();
    done.add(id);
    return Optional.empty();
  }
}
