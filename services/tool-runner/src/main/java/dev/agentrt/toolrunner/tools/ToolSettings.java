package dev.agentrt.toolrunner.tools;

import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Per-tool settings from configuration: the default timeout and overrides by tool name ({@code
 * agentrt.tools.overrides."[files__write_file]".idempotent: false}, {@code .approval: required}).
 */
public record ToolSettings(Duration defaultTimeout, Map<String, Override> overrides) {

  /** Whether a tool's calls wait for a person's approval. */
  public enum Approval {
    required,
    none
  }

  /** What configuration says about one tool; null fields keep what the tool declares. */
  public record Override(
      @Nullable Duration timeout, @Nullable Boolean idempotent, @Nullable Approval approval) {}

  public ToolSettings {
    overrides = overrides == null ? Map.of() : Map.copyOf(overrides);
  }

  public static ToolSettings defaults(Duration timeout) {
    return new ToolSettings(timeout, Map.of());
  }

  /** The tool's timeout: its override, else the source's (an MCP server's), else the default. */
  public Duration timeout(String tool, @Nullable Duration sourceTimeout) {
    Override override = overrides.get(tool);
    if (override != null && override.timeout() != null) {
      return override.timeout();
    }
    return sourceTimeout != null ? sourceTimeout : defaultTimeout;
  }

  /** The longest timeout any tool of a source with this timeout can have. */
  public Duration longestTimeout(@Nullable Duration sourceTimeout) {
    Duration longest = sourceTimeout != null ? sourceTimeout : defaultTimeout;
    for (Override override : overrides.values()) {
      if (override.timeout() != null && override.timeout().compareTo(longest) > 0) {
        longest = override.timeout();
      }
    }
    return longest;
  }

  /** Whether the tool's calls wait for a person's approval: its override, else its declaration. */
  public boolean approvalRequired(String tool, boolean declared) {
    Override override = overrides.get(tool);
    return override != null && override.approval() != null
        ? override.approval() == Approval.required
        : declared;
  }

  public boolean idempotent(String tool, boolean declared) {
    Override override = overrides.get(tool);
    return override != null && override.idempotent() != null ? override.idempotent() : declared;
  }
}
