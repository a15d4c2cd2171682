package dev.agentrt.store;

/**
 * Whose conversation a message goes to: what appending to it and announcing it need, which a
 * document made for a sub-agent (a tool call) already carries, so nobody has to read the sub-agent
 * for it.
 */
public record SubAgentIds(String subAgentId, String taskId, String chatId) {

  public static SubAgentIds of(SubAgent subAgent) {
    return new SubAgentIds(subAgent.id(), subAgent.taskId(), subAgent.chatId());
  }

  public static SubAgentIds of(ToolCall call) {
    return new SubAgentIds(call.subAgentId(), call.taskId(), call.chatId());
  }
}
