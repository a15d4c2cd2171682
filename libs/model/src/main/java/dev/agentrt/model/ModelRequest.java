package dev.agentrt.model;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the model sees in one turn.
 *
 * @param purpose what the turn is for; the offline model follows different rules for each
 * @param messages the conversation so far, in order
 * @param tools the tools the model may call this turn
 * @param responseSchema a JSON Schema the answer's content must satisfy (structured output), or
 *     null for free text
 */
public record ModelRequest(
    Purpose purpose,
    List<ModelMessage> messages,
    List<ToolSpec> tools,
    @Nullable String responseSchema) {

  public enum Purpose {
    /** The orchestrator decides what to do with a person's message. */
    DECISION,
    /** A sub-agent's turn in its tool loop. */
    AGENT_TURN,
    /** The finalizer writes the chat's answer from a task's outcome. */
    FINAL_ANSWER
  }
}
