package dev.agentrt.model;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The assistant message of one turn, with what it cost.
 *
 * @param finishReason {@code stop}, {@code tool_calls}, {@code length}, …
 */
public record ModelReply(
    @Nullable String content,
    List<ModelToolCall> toolCalls,
    Usage usage,
    String finishReason,
    long latencyMs) {

  public record Usage(int promptTokens, int completionTokens) {}
}
