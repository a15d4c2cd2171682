package dev.agentrt.store;

/** MongoDB collection names (DESIGN.md, Documents). */
public final class Collections {

  public static final String CHATS = "chats";
  public static final String CHAT_MESSAGES = "chat_messages";
  public static final String TASKS = "tasks";
  public static final String SUB_AGENTS = "sub_agents";
  public static final String SUB_AGENT_MESSAGES = "sub_agent_messages";
  public static final String SUB_AGENT_TOOL_CALLS = "sub_agent_tool_calls";
  public static final String RUN_EVENTS = "run_events";

  /** Finished tasks' outcomes whose answer the finalizer has yet to write in the chat. */
  public static final String PENDING_ANSWERS = "pending_answers";

  /** Graphs of agent tasks and how far each got. */
  public static final String PLANS = "plans";

  private Collections() {}
}
