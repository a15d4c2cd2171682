package dev.agentrt.orchestrator.chat;

import dev.agentrt.orchestrator.models.Pricing;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.store.Usage;
import java.math.BigDecimal;
import org.jspecify.annotations.Nullable;

/**
 * Model turns summed on a chat, a task or a sub-agent, as the API shows them.
 *
 * @param turns the stored model turns counted
 * @param costUsd from the price table, when every model of these turns has a price
 */
record UsageView(
    long promptTokens, long completionTokens, long turns, @Nullable BigDecimal costUsd) {

  static UsageView of(@Nullable Usage stored, Pricing pricing) {
    Usage usage = Usage.of(stored);
    return new UsageView(
        usage.promptTokens(),
        usage.completionTokens(),
        usage.turns(),
        pricing.cost(usage).orElse(null));
  }

  /**
   * The tokens of one stored outcome (a sub-agent's turn, an answer the model wrote).
   *
   * @param costUsd from the price table, when the model has a price
   */
  record Turn(long promptTokens, long completionTokens, @Nullable BigDecimal costUsd) {

    static @Nullable Turn of(@Nullable String model, @Nullable TurnUsage tokens, Pricing pricing) {
      return tokens == null
          ? null
          : new Turn(
              tokens.promptTokens(),
              tokens.completionTokens(),
              pricing.cost(model, tokens).orElse(null));
    }
  }
}
