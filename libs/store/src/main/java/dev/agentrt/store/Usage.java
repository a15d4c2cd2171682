package dev.agentrt.store;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.data.annotation.PersistenceCreator;

/**
 * The model turns summed on a chat or a task ({@code usage} of the document; a chat's holds only
 * what no task of it counts, see {@link Task#usageApart}), or of a sub-agent (summed from its
 * conversation when read, {@link #summed}): the tokens of every stored turn, how many turns, and
 * the same split by model (for pricing; a turn that asked for no model in particular counts under
 * the default model). A document's is only ever changed by {@link UsageCounter}'s {@code $inc}; a
 * document no turn has counted on yet has none.
 *
 * @param models per model, under keys made by {@link UsageCounter#key}: read them with {@link
 *     #byModel()}
 */
public record Usage(
    long promptTokens,
    long completionTokens,
    long turns,
    @Nullable Map<String, ModelTokens> models) {

  public static final Usage NONE = new Usage(0, 0, 0, Map.of());

  @PersistenceCreator
  public Usage {}

  /** One model's share of the sums. */
  public record ModelTokens(long promptTokens, long completionTokens, long turns) {

    ModelTokens plus(ModelTokens other) {
      return new ModelTokens(
          promptTokens + other.promptTokens(),
          completionTokens + other.completionTokens(),
          turns + other.turns());
    }
  }

  /**
   * The sums per model name; the key {@code null} stands for the default model (turns that named
   * none).
   */
  public Map<@Nullable String, ModelTokens> byModel() {
    Map<@Nullable String, ModelTokens> byName = new LinkedHashMap<>();
    if (models != null) {
      models.forEach((key, tokens) -> byName.put(UsageCounter.modelName(key), tokens));
    }
    return byName;
  }

  /**
   * The sums of a sub-agent's turns: its conversation's answers, each stored once with its model
   * and tokens. Summed on read, so a turn costs no write to the sub-agent for them.
   */
  public static Usage summed(List<SubAgentMessage> conversation) {
    long prompt = 0;
    long completion = 0;
    long turns = 0;
    Map<String, ModelTokens> models = new LinkedHashMap<>();
    for (SubAgentMessage message : conversation) {
      TurnUsage tokens = message.usage();
      if (!SubAgentMessage.ASSISTANT.equals(message.role()) || tokens == null) {
        continue;
      }
      prompt += tokens.promptTokens();
      completion += tokens.completionTokens();
      turns++;
      models.merge(
          UsageCounter.key(message.model()),
          new ModelTokens(tokens.promptTokens(), tokens.completionTokens(), 1),
          ModelTokens::plus);
    }
    return turns == 0 ? NONE : new Usage(prompt, completion, turns, models);
  }

  /** These sums and {@code other}'s, model by model. */
  public Usage plus(@Nullable Usage other) {
    if (other == null) {
      return this;
    }
    Map<String, ModelTokens> sums = new LinkedHashMap<>(models == null ? Map.of() : models);
    if (other.models() != null) {
      other.models().forEach((key, tokens) -> sums.merge(key, tokens, ModelTokens::plus));
    }
    return new Usage(
        promptTokens + other.promptTokens(),
        completionTokens + other.completionTokens(),
        turns + other.turns(),
        sums);
  }

  /** The sums of a document that may have none yet. */
  public static Usage of(@Nullable Usage usage) {
    return usage == null ? NONE : usage;
  }
}
