package dev.agentrt.model;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A message in the chat-completions shape: system, user, assistant (maybe with tool calls), tool.
 */
public record ModelMessage(
    String role,
    @Nullable String content,
    List<ModelToolCall> toolCalls,
    @Nullable String toolCallId) {

  public static ModelMessage system(String content) {
    return new ModelMessage("system", content, List.of(), null);
  }

  public static ModelMessage user(String content) {
    return new ModelMessage("user", content, List.of(), null);
  }

  public static ModelMessage assistant(@Nullable String content, List<ModelToolCall> toolCalls) {
    return new ModelMessage("assistant", content, toolCalls, null);
  }

  public static ModelMessage tool(String toolCallId, String content) {
    return new ModelMessage("tool", content, List.of(), toolCallId);
  }
}
