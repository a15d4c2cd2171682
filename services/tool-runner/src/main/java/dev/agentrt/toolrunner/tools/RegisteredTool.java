package dev.agentrt.toolrunner.tools;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * One tool as the registry offers it: Spring AI's {@link ToolCallback} (its {@link ToolDefinition}
 * and the call), and what running it safely needs besides.
 *
 * @param outputSchema JSON Schema (as JSON text) a result must satisfy, or null
 * @param timeout how long one call may run before it fails with {@code timeout}
 * @param idempotent whether a call whose worker died may be run again; if not it ends {@code
 *     interrupted}
 * @param source {@code built-in}, {@code runtime} (handled by the agent loop) or {@code
 *     mcp:<server>}
 * @param approvalRequired whether every call waits for a person's approval (the agent loop stores
 *     it {@code awaiting_approval}; it reaches this service only once approved)
 */
public record RegisteredTool(
    ToolCallback callback,
    @Nullable String outputSchema,
    Duration timeout,
    boolean idempotent,
    String source,
    boolean approvalRequired) {

  public static final String BUILT_IN = "built-in";
  public static final String RUNTIME = "runtime";

  public ToolDefinition definition() {
    return callback.getToolDefinition();
  }

  public String name() {
    return definition().name();
  }

  /** Handled by the agent loop, never run here. */
  public boolean handledByRuntime() {
    return RUNTIME.equals(source);
  }
}
