package dev.agentrt.orchestrator.decision;

import static dev.agentrt.orchestrator.decision.MessageOutcomes.PLAN;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.Plan;
import dev.agentrt.store.PlanNode;
import dev.agentrt.store.Plans;
import dev.agentrt.store.Task;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * The orchestrator's side of plans: refusing an invalid one ({@link PlanValidation}), storing a
 * decided one and starting the nodes that depend on nothing, and finishing that start when the
 * person's message is handled again. The finalizer moves a plan on from there.
 */
@Component
class ChatPlans {

  private final Plans plans;
  private final PlanValidation validation;
  private final Clock clock = Clock.tickMillis(ZoneOffset.UTC); // as precise as MongoDB

  ChatPlans(Plans plans, AgentCatalog agents, PlanProperties properties) {
    this.plans = plans;
    this.validation =
        new PlanValidation(
            agent -> agents.find(agent).isPresent(), names(agents), properties.maxNodes());
  }

  /** The agents there are, as refusals list them. */
  static String names(AgentCatalog agents) {
    return agents.all().stream().map(AgentDefinition::name).collect(Collectors.joining(", "));
  }

  /**
   * @throws InvalidDecisionException naming what makes the plan no valid graph
   */
  void check(Decision.Plan plan) throws InvalidDecisionException {
    validation.check(plan);
  }

  /**
   * Stores the plan the message led to, then starts its nodes that depend on nothing, all of them
   * ({@link Plans#advance}); they publish their own tasks' events, so the publication carries none.
   * A crash in between is finished by the message's next handling ({@link #started}) or by the
   * finalizer's plan sweep.
   *
   * @param tokens what the decision adds to the chat's sums when this call stores the plan
   */
  void start(
      ChatMessage message, @Nullable String model, Decision.Plan plan, Map<String, Long> tokens) {
    String planId = planId(message);
    plans.create(
        Plan.start(
            planId,
            message.chatId(),
            message.id(),
            message.content(),
            model,
            plan.nodes().stream()
                .map(
                    n ->
                        PlanNode.pending(planId, n.id(), n.agent(), n.instruction(), n.dependsOn()))
                .toList(),
            clock.instant(),
            new Task.Routing(plan.confidence(), plan.reason(), false)),
        tokens);
    plans.advance(planId);
  }

  /** The plan the message started before, its unstarted ready nodes started now; else empty. */
  Optional<Publication> started(ChatMessage message) {
    return plans
        .find(planId(message))
        .map(
            plan -> {
              plans.advance(plan.id());
              return publication(plan.id());
            });
  }

  /** What a plan's start leaves to publish: nothing, its tasks published their own events. */
  static Publication publication(String planId) {
    return new Publication(Collections.PLANS, planId, List.of());
  }

  /**
   * The tasks of the chat's plans' nodes: their outcome is their plan's, so the decision's context
   * leaves them out and they cannot be reactivated.
   */
  List<String> nodeTaskIds(String chatId) {
    return plans.ofChat(chatId).stream()
        .flatMap(p -> p.nodes().stream())
        .map(PlanNode::taskId)
        .toList();
  }

  private static String planId(ChatMessage message) {
    return Ids.derived(message.id(), PLAN);
  }
}
