package dev.agentrt.model;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ModelPort} of the product: sends each request to the model it names ({@link
 * ModelRequest#model()}), or to the default model when it names none.
 */
public final class ModelRouter implements ModelPort {

  private final Map<String, ModelPort> models;
  private final String defaultModel;

  /**
   * @param models the models by name
   * @param defaultModel the name of the model a request without a model name goes to
   */
  public ModelRouter(Map<String, ModelPort> models, String defaultModel) {
    if (!models.containsKey(defaultModel)) {
      throw new IllegalArgumentException(
          "default model '" + defaultModel + "' is not among " + models.keySet());
    }
    this.models = Collections.unmodifiableSortedMap(new TreeMap<>(models));
    this.defaultModel = defaultModel;
  }

  /**
   * @throws ModelException non-transient, when the request names a model that is not configured
   */
  @Override
  public ModelReply complete(ModelRequest request) {
    String name = request.model() == null ? defaultModel : request.model();
    ModelPort model = models.get(name);
    if (model == null) {
      throw new ModelException(
          "unknown model '" + name + "'; configured: " + models.keySet(), false);
    }
    return model.complete(request);
  }

  /** Whether a request may name this model (null means the default, which always exists). */
  public boolean knows(@Nullable String name) {
    return name == null || models.containsKey(name);
  }

  /** The names of the configured models, sorted. */
  public Set<String> names() {
    return models.keySet();
  }

  /** The name of the model a request without a model name goes to. */
  public String defaultModel() {
    return defaultModel;
  }
}
