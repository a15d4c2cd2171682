package dev.agentrt.orchestrator.decision;

import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.model.ModelMessage;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Task;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the model sees when it decides: a system message (its job, the four actions, and one {@code
 * Context:} line of JSON with the agents and the chat's tasks), then the chat's last messages.
 * Never a sub-agent's own conversation: the orchestrator knows tasks by their outcome.
 */
final class DecisionPrompt {

  static final String CONTEXT_PREFIX = "Context: ";

  static final String INSTRUCTIONS =
      """
      You are the orchestrator of a team of agents. You talk with a person in a chat and decide \
      what to do with each of their messages. Reply with exactly one JSON object and nothing \
      else, in one of four forms:
      {"action":"answer","answer":"..."} answers the person yourself, when no agent is needed: \
      greetings, questions about you or about what this chat already says.
      {"action":"new_task","agent":"<name>","instruction":"...","confidence":0.9,"reason":"..."} puts one of the agents below on \
      a new task. The agent does not see this chat, so the instruction must say everything it \
      needs.
      {"action":"reactivate","subAgentId":"...","message":"...","confidence":0.9,"reason":"..."} \
      sends a follow-up to the \
      sub-agent of an earlier task of this chat (a subAgentId from the tasks below), when the \
      person's message continues that task; the sub-agent remembers its work.
      {"action":"plan","nodes":[{"id":"...","agent":"<name>","instruction":"...","dependsOn":[]}],\
      "confidence":0.9,"reason":"..."} \
      runs several agent tasks, when the request has parts that can be done separately: each node \
      is one agent's task; nodes that depend on nothing run at the same time, a node runs once the \
      nodes it depends on have succeeded and gets their results. Ids are unique, dependencies \
      name nodes of the plan, and there is no cycle.
      A new_task, reactivate or plan says how sure you are that it is the right agent and action \
      (confidence, from 0 for a guess to 1 for certain) and why (reason, one short sentence the \
      person reads).
      The agents you can use, and the tasks of this chat oldest first (result is the first line \
      of a task's result):""";

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private DecisionPrompt() {}

  static List<ModelMessage> messages(
      List<AgentDefinition> agents, List<Task> tasks, List<ChatMessage> history) {
    List<ModelMessage> messages = new ArrayList<>();
    messages.add(
        ModelMessage.system(INSTRUCTIONS + "\n" + CONTEXT_PREFIX + context(agents, tasks)));
    for (ChatMessage message : history) {
      messages.add(
          ChatMessage.USER.equals(message.role())
              ? ModelMessage.user(message.content())
              : ModelMessage.assistant(message.content(), List.of()));
    }
    return messages;
  }

  /**
   * {@code {"agents":[{name,description}],"tasks":[{taskId,subAgentId,agent,status,result}]}} on
   * one line, absent fields left out.
   */
  static String context(List<AgentDefinition> agents, List<Task> tasks) {
    ObjectNode context = MAPPER.createObjectNode();
    ArrayNode agentList = context.putArray("agents");
    for (AgentDefinition agent : agents) {
      agentList.addObject().put("name", agent.name()).put("description", agent.description());
    }
    ArrayNode taskList = context.putArray("tasks");
    for (Task task : tasks) {
      ObjectNode node = taskList.addObject().put("taskId", task.id());
      if (task.subAgentId() != null) {
        node.put("subAgentId", task.subAgentId());
      }
      node.put("agent", task.agent()).put("status", task.status().name());
      if (task.result() != null) {
        node.put("result", task.result().strip().lines().findFirst().orElse(""));
      }
    }
    return MAPPER.writeValueAsString(context);
  }
}
