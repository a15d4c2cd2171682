package dev.agentrt.orchestrator.decision;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Refuses a well-formed decision that cannot be carried out in this chat, saying why so that the
 * model can repair it: a blank text, an unknown agent, a sub-agent that is not of the chat or has
 * ended, a plan that is no valid graph.
 */
final class DecisionChecks {

  private final MongoTemplate mongo;
  private final AgentCatalog agents;
  private final ChatPlans plans;

  DecisionChecks(MongoTemplate mongo, AgentCatalog agents, ChatPlans plans) {
    this.mongo = mongo;
    this.agents = agents;
    this.plans = plans;
  }

  /**
   * @param tasks the chat's tasks the decision's context listed
   * @throws InvalidDecisionException naming what is wrong
   */
  void check(Decision decision, String chatId, List<Task> tasks) throws InvalidDecisionException {
    switch (decision) {
      case Decision.Answer answer -> notBlank("answer", answer.answer());
      case Decision.NewTask newTask -> {
        notBlank("instruction", newTask.instruction());
        if (agents.find(newTask.agent()).isEmpty()) {
          throw new InvalidDecisionException(
              "there is no agent '"
                  + newTask.agent()
                  + "'; the agents are: "
                  + ChatPlans.names(agents));
        }
      }
      case Decision.Plan plan -> plans.check(plan);
      case Decision.Reactivate reactivate -> {
        notBlank("message", reactivate.message());
        Map<String, Task> bySubAgent =
            tasks.stream()
                .filter(t -> t.subAgentId() != null)
                .collect(Collectors.toMap(Task::subAgentId, Function.identity(), (a, b) -> b));
        Task task = bySubAgent.get(reactivate.subAgentId());
        SubAgent subAgent =
            task == null ? null : mongo.findById(reactivate.subAgentId(), SubAgent.class);
        if (subAgent == null || !chatId.equals(subAgent.chatId())) {
          throw new InvalidDecisionException(
              "there is no sub-agent '"
                  + reactivate.subAgentId()
                  + "' in this chat; use a subAgentId of the context's tasks");
        }
        if (subAgent.status() == SubAgentStatus.failed
            || task.status() == TaskStatus.failed
            || task.status() == TaskStatus.cancelled) {
          throw new InvalidDecisionException(
              "the sub-agent '"
                  + reactivate.subAgentId()
                  + "' has ended ("
                  + task.status()
                  + ") and cannot be reactivated; start a new task instead");
        }
      }
    }
  }

  private static void notBlank(String field, String value) throws InvalidDecisionException {
    if (value.isBlank()) {
      throw new InvalidDecisionException("field '" + field + "' is blank");
    }
  }
}
