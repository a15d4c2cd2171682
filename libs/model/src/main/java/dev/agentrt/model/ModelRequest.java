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
 * @param model the name of the configured model to ask, or null for the default model
 */
public record ModelRequest(
    Purpose purpose,
    List<ModelMessage> messages,
    List<ToolSpec> tools,
    @Nullable String responseSchema,
    @Nullable String model) {

  /** A request to the default model. */
  public ModelRequest(
      Purpose purpose,
      List<ModelMessage> messages,
      List<ToolSpec> tools,
      @Nullable String responseSchema) {
    this(purpose, messages, tools, responseSchema, null);
  }

  public enum Purpose {
    /** The orchestrator decides what to do with a person's message. */
    DECISION,
    /** A sub-agent's turn in its tool loop. */
    AGENT_TURN,
    /** The finalizer writes the chat's answer from a task's outcome. */
    FINAL_ANSWER
  }
}
