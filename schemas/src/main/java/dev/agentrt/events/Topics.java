package dev.agentrt.events;

/**
 * Topic names, the one place they are spelled. The AsyncAPI document ({@code asyncapi.yaml}) says
 * what each carries, its key and its partitions; a test keeps the two in agreement.
 */
public final class Topics {

  /** Chat traffic, keyed by chatId. */
  public static final String CHAT_MESSAGES = "agentrt.chat-messages";

  /** Task lifecycle, keyed by taskId. */
  public static final String TASKS = "agentrt.tasks";

  /** Messages to sub-agents, keyed by subAgentId. */
  public static final String SUB_AGENT_MESSAGES = "agentrt.sub-agent-messages";

  /** Tool calls to run, keyed by subAgentId. */
  public static final String TOOL_CALLS = "agentrt.tool-calls";

  /** Records no service could handle, with the reason and their origin in headers. */
  public static final String DEAD_LETTERS = "agentrt.dead-letters";

  private Topics() {}
}
