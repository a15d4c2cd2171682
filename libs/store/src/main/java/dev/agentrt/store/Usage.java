package dev.agentrt.store;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.data.annotation.PersistenceCreator;

/**
 * The model turns summed on a chat, a task or a sub-agent ({@code usage} of the document): the
 * tokens of every stored turn, how many turns, and the same split by model (for pricing; a turn
 * that asked for no model in particular counts under the default model). Only ever changed by
 * {@link UsageCounter}'s {@code $inc}; a document no turn has counted on yet has none.
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
  public record ModelTokens(long promptTokens, long completionTokens, long turns) {}

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

  /** The sums of a document that may have none yet. */
  public static Usage of(@Nullable Usage usage) {
    return usage == null ? NONE : usage;
  }
}
