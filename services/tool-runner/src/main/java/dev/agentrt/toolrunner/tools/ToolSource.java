package dev.agentrt.toolrunner.tools;

import java.util.List;

/** Where tools come from: the built-in ones, one MCP server, the runtime's own. */
public interface ToolSource {

  /** The tools this source offers now. */
  List<RegisteredTool> tools();

  /** Tells the listener whenever {@link #tools} changes (an MCP server's list changed). */
  default void onChange(Runnable listener) {}
}
