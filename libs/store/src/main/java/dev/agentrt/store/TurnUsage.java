package dev.agentrt.store;

/**
 * The tokens of one stored model outcome, as the provider reported them: on the assistant message
 * of a sub-agent's turn, and on a chat message the model wrote.
 */
public record TurnUsage(long promptTokens, long completionTokens) {

  public static final TurnUsage NONE = new TurnUsage(0, 0);

  public TurnUsage plus(TurnUsage other) {
    return new TurnUsage(
        promptTokens + other.promptTokens, completionTokens + other.completionTokens);
  }
}
