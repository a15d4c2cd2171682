package dev.agentrt.orchestrator.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentrt.orchestrator.testing.TestModels;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.store.Usage;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** Cost from the price table, computed when read. */
class PricingTest {

  private static final ModelNames MODELS = TestModels.named("offline", "fast", "gpt-4.1-mini");

  private final Pricing pricing =
      new Pricing(
          Map.of(
              "fast", price("0.15", "0.60"),
              "offline", price("0", "0")),
          MODELS);

  @Test
  void pricesTokensPerMillionInDollars() {
    assertThat(pricing.cost("fast", new TurnUsage(1_000_000, 500_000)))
        .contains(new BigDecimal("0.45"));
    assertThat(pricing.cost("fast", new TurnUsage(310, 50))).contains(new BigDecimal("0.0000765"));
  }

  @Test
  void theDefaultModelIsPricedUnderItsName() {
    assertThat(pricing.cost(null, new TurnUsage(100, 100))).contains(BigDecimal.ZERO);
  }

  @Test
  void aModelWithoutAPriceHasNoCostAndNeitherHaveSumsThatIncludeIt() {
    assertThat(pricing.cost("gpt-4.1-mini", new TurnUsage(100, 100))).isEmpty();
    Map<String, Usage.ModelTokens> models = new LinkedHashMap<>();
    models.put("fast", new Usage.ModelTokens(1_000_000, 0, 1));
    assertThat(pricing.cost(new Usage(1_000_000, 0, 1, models))).contains(new BigDecimal("0.15"));
    models.put("gpt-4%2E1-mini", new Usage.ModelTokens(1, 1, 1));
    assertThat(pricing.cost(new Usage(1_000_001, 1, 2, models))).isEmpty();
    assertThat(pricing.cost(Usage.NONE)).isEmpty();
  }

  @Test
  void readsThePriceTableFromConfigurationModelNamesWithDotsInBrackets() {
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "test",
                Map.of(
                    "agentrt.pricing.fast.prompt-per-million", "0.15",
                    "agentrt.pricing.fast.completion-per-million", "0.60",
                    "agentrt.pricing.[gpt-4.1-mini].prompt-per-million", "0.40",
                    "agentrt.pricing.[gpt-4.1-mini].completion-per-million", "1.60")));

    Pricing configured = new ModelsConfiguration().pricing(environment, MODELS);

    assertThat(configured.cost("fast", new TurnUsage(1_000_000, 0)))
        .contains(new BigDecimal("0.15"));
    assertThat(configured.cost("gpt-4.1-mini", new TurnUsage(0, 1_000_000)))
        .contains(new BigDecimal("1.6"));
    assertThat(configured.cost("offline", new TurnUsage(1, 1))).isEmpty();
  }

  @Test
  void aPriceWithoutBothRatesStopsStartUp() {
    assertThatThrownBy(
            () -> new Pricing(Map.of("fast", new Pricing.Price(BigDecimal.ONE, null)), MODELS))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("agentrt.pricing.fast")
        .hasMessageContaining("completion-per-million");
  }

  private static Pricing.Price price(String prompt, String completion) {
    return new Pricing.Price(new BigDecimal(prompt), new BigDecimal(completion));
  }
}
