package dev.agentrt.orchestrator.models;

import dev.agentrt.store.TurnUsage;
import dev.agentrt.store.Usage;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Turns tokens into US dollars with the price table ({@code agentrt.pricing}), when they are read:
 * cost is never stored, so a changed price applies to what was spent before too. Tokens of a model
 * without a price have no cost; sums that include them have none either, rather than a part.
 */
public final class Pricing {

  private static final BigDecimal MILLION = BigDecimal.valueOf(1_000_000);

  /**
   * The price of a million tokens, in USD.
   *
   * @param promptPerMillion {@code prompt-per-million}: tokens the model reads
   * @param completionPerMillion {@code completion-per-million}: tokens it writes
   */
  public record Price(BigDecimal promptPerMillion, BigDecimal completionPerMillion) {}

  private final Map<String, Price> prices;
  private final ModelNames names;

  /**
   * @throws IllegalStateException when a price lacks a rate or has a negative one
   */
  public Pricing(Map<String, Price> prices, ModelNames names) {
    for (Map.Entry<String, Price> entry : prices.entrySet()) {
      Price price = entry.getValue();
      String at = "agentrt.pricing." + entry.getKey();
      if (price.promptPerMillion() == null || price.completionPerMillion() == null) {
        throw new IllegalStateException(
            at + " needs both prompt-per-million and completion-per-million (USD)");
      }
      if (price.promptPerMillion().signum() < 0 || price.completionPerMillion().signum() < 0) {
        throw new IllegalStateException(at + ": a price cannot be negative");
      }
    }
    this.prices = new HashMap<>(prices);
    this.names = names;
  }

  /** A price table without prices: no cost is ever shown. */
  public static Pricing none(ModelNames names) {
    return new Pricing(Map.of(), names);
  }

  /** The cost of one outcome's tokens, asked of {@code model} (null: the default model). */
  public Optional<BigDecimal> cost(@Nullable String model, TurnUsage tokens) {
    return price(model).map(p -> cost(p, tokens.promptTokens(), tokens.completionTokens()));
  }

  /**
   * The cost of summed turns: empty when there are none, or when one of their models has no price.
   */
  public Optional<BigDecimal> cost(Usage usage) {
    Map<@Nullable String, Usage.ModelTokens> byModel = usage.byModel();
    if (byModel.isEmpty()) {
      return Optional.empty();
    }
    BigDecimal total = BigDecimal.ZERO;
    for (Map.Entry<@Nullable String, Usage.ModelTokens> share : byModel.entrySet()) {
      Optional<Price> price = price(share.getKey());
      if (price.isEmpty()) {
        return Optional.empty();
      }
      total =
          total.add(
              cost(
                  price.get(),
                  share.getValue().promptTokens(),
                  share.getValue().completionTokens()));
    }
    return Optional.of(total.stripTrailingZeros());
  }

  private Optional<Price> price(@Nullable String model) {
    return Optional.ofNullable(prices.get(model == null ? names.defaultName() : model));
  }

  private static BigDecimal cost(Price price, long promptTokens, long completionTokens) {
    return price
        .promptPerMillion()
        .multiply(BigDecimal.valueOf(promptTokens))
        .add(price.completionPerMillion().multiply(BigDecimal.valueOf(completionTokens)))
        .divide(MILLION)
        .stripTrailingZeros();
  }
}
