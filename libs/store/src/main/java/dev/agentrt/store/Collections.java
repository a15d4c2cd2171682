package dev.agentrt.store;

/** MongoDB collection names (DESIGN.md, Documents). */
public final class Collections {

  public static final String CHATS = "chats";
  public static final String CHAT_MESSAGES = "chat_messages";
  public static final String TASKS = "tasks";
  public static final String SUB_AGENTS = "sub_agents";

  private Collections() {}
}
