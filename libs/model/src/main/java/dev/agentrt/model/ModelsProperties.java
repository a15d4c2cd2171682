package dev.agentrt.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Name;

/**
 * The configured models ({@code agentrt.models}): named definitions and the name of the default
 * one. A model named {@code offline} always exists; it is the default when nothing else is named.
 *
 * @param defaultModel {@code agentrt.models.default}: the model a request without a model name goes
 *     to
 * @param definitions {@code agentrt.models.definitions.<name>}: the models by name
 * @param maxConcurrentCalls {@code agentrt.models.max-concurrent-calls}: calls in flight to one
 *     model at most, unless its definition says otherwise; further calls wait ({@value
 *     #DEFAULT_MAX_CONCURRENT_CALLS} when unset)
 */
@ConfigurationProperties("agentrt.models")
public record ModelsProperties(
    @Name("default") @Nullable String defaultModel,
    Map<String, Definition> definitions,
    @Nullable Integer maxConcurrentCalls) {

  public static final String OFFLINE = "offline";

  /** The short form's model ({@code AGENTRT_MODEL_*}) is defined under this name. */
  private static final String SHORT_FORM_NAME = "default";

  static final Set<String> PROVIDERS = Set.of("openai", "anthropic", "offline");

  public static final int DEFAULT_MAX_CONCURRENT_CALLS = 256;

  public ModelsProperties {
    definitions = definitions == null ? Map.of() : Map.copyOf(definitions);
    maxConcurrentCalls =
        maxConcurrentCalls == null ? DEFAULT_MAX_CONCURRENT_CALLS : maxConcurrentCalls;
  }

  /** The most calls in flight to the model of this definition. */
  public int maxConcurrentCalls(Definition definition) {
    return definition.maxConcurrentCalls() == null
        ? maxConcurrentCalls
        : definition.maxConcurrentCalls();
  }

  /**
   * One model.
   *
   * @param provider {@code openai} (any OpenAI-compatible endpoint), {@code anthropic} or {@code
   *     offline}
   * @param baseUrl the endpoint, e.g. {@code https://api.openai.com/v1} or {@code
   *     http://localhost:11434/v1} for Ollama; Anthropic's default when unset
   * @param apiKey the key; none (no {@code Authorization} header) when unset, for openai
   * @param model the provider's model name, e.g. {@code gpt-4o-mini}
   * @param temperature sampling temperature, the provider's default when unset
   * @param maxTokens the most tokens of one answer, the provider's default when unset (4096 for
   *     Anthropic, which requires one)
   * @param timeout how long one HTTP call may take, 60 s when unset
   * @param maxConcurrentCalls calls in flight to this model at most; {@code
   *     agentrt.models.max-concurrent-calls} when unset
   */
  public record Definition(
      @Nullable String provider,
      @Nullable String baseUrl,
      @Nullable String apiKey,
      @Nullable String model,
      @Nullable Double temperature,
      @Nullable Integer maxTokens,
      @Nullable Duration timeout,
      @Nullable Integer maxConcurrentCalls) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    public Definition {
      timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
    }

    static Definition offline() {
      return new Definition(OFFLINE, null, null, null, null, null, null, null);
    }

    /** Everything but the key, which shows only as set or not: this lands in logs. */
    @Override
    public String toString() {
      return "Definition[provider=%s, baseUrl=%s, apiKey=%s, model=%s, temperature=%s, maxTokens=%s, timeout=%s, maxConcurrentCalls=%s]"
          .formatted(
              provider,
              baseUrl,
              masked(apiKey),
              model,
              temperature,
              maxTokens,
              timeout,
              maxConcurrentCalls);
    }
  }

  /**
   * The short form for the common case, from {@code AGENTRT_MODEL_PROVIDER}, {@code
   * AGENTRT_MODEL_BASE_URL}, {@code AGENTRT_MODEL_API_KEY} and {@code AGENTRT_MODEL_NAME} (or the
   * properties {@code agentrt.model.provider}, {@code .base-url}, {@code .api-key}, {@code .name}).
   */
  @ConfigurationProperties("agentrt.model")
  public record ShortForm(
      @Nullable String provider,
      @Nullable String baseUrl,
      @Nullable String apiKey,
      @Nullable String name) {

    @Override
    public String toString() {
      return "ShortForm[provider=%s, baseUrl=%s, apiKey=%s, name=%s]"
          .formatted(provider, baseUrl, masked(apiKey), name);
    }
  }

  private static String masked(@Nullable String apiKey) {
    return apiKey == null || apiKey.isBlank() ? "(none)" : "(set)";
  }

  /**
   * The offline model's settings ({@code agentrt.offline-model}).
   *
   * @param latency {@code agentrt.offline-model.latency} ({@code AGENTRT_OFFLINE_MODEL_LATENCY},
   *     e.g. {@code 2s}): how long every offline call takes, 0 when unset; holds calls in flight
   *     for crash tests, demos and the bench without a fake server
   */
  @ConfigurationProperties("agentrt.offline-model")
  public record OfflineSettings(@Nullable Duration latency) {

    public OfflineSettings {
      latency = latency == null ? Duration.ZERO : latency;
      if (latency.isNegative()) {
        throw new IllegalArgumentException(
            "agentrt.offline-model.latency must not be negative: " + latency);
      }
    }
  }

  /**
   * These models with the short form's model added as {@code default} (and made the default unless
   * {@code agentrt.models.default} names another), and {@code offline} always defined.
   */
  public ModelsProperties with(ShortForm shortForm) {
    Map<String, Definition> all = new LinkedHashMap<>(definitions);
    all.putIfAbsent(OFFLINE, Definition.offline());
    String defaultName = defaultModel;
    if (hasText(shortForm.provider())) {
      all.put(
          SHORT_FORM_NAME,
          new Definition(
              shortForm.provider(),
              shortForm.baseUrl(),
              shortForm.apiKey(),
              shortForm.name(),
              null,
              null,
              null,
              null));
      defaultName = defaultName == null ? SHORT_FORM_NAME : defaultName;
    }
    return new ModelsProperties(
        defaultName == null ? OFFLINE : defaultName, all, maxConcurrentCalls);
  }

  /**
   * What of these settings shapes a model's answers, as one line per model sorted by name, the
   * default first: provider, endpoint, provider's model name, temperature, answer length. Keys,
   * timeouts and concurrency are left out: they change no answer (and a key must not be in a digest
   * that is shown).
   */
  public String answerSettings() {
    StringBuilder settings = new StringBuilder("default=").append(defaultModel);
    definitions.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              Definition d = e.getValue();
              settings
                  .append('\n')
                  .append(e.getKey())
                  .append(": provider=")
                  .append(d.provider())
                  .append(" baseUrl=")
                  .append(d.baseUrl())
                  .append(" model=")
                  .append(d.model())
                  .append(" temperature=")
                  .append(d.temperature())
                  .append(" maxTokens=")
                  .append(d.maxTokens());
            });
    return settings.toString();
  }

  /**
   * Checks the definitions and the default.
   *
   * @throws IllegalStateException naming the first property that is wrong, and what is wrong
   */
  public void check() {
    List<String> problems = new ArrayList<>();
    definitions.forEach(
        (name, definition) -> {
          String prefix = "agentrt.models.definitions." + name + ".";
          String provider = definition.provider();
          if (name.equals(OFFLINE) && !OFFLINE.equals(provider)) {
            problems.add(
                prefix + "provider must be offline: the name offline is the offline model's");
          } else if (!hasText(provider)) {
            problems.add(prefix + "provider is missing; one of " + sorted(PROVIDERS));
          } else if (!PROVIDERS.contains(provider)) {
            problems.add(
                prefix + "provider '" + provider + "' is unknown; one of " + sorted(PROVIDERS));
          } else if (provider.equals("openai")) {
            if (!hasText(definition.baseUrl())) {
              problems.add(prefix + "base-url is missing (provider openai)");
            }
            if (!hasText(definition.model())) {
              problems.add(prefix + "model is missing (provider openai)");
            }
          } else if (provider.equals("anthropic") && !hasText(definition.apiKey())) {
            problems.add(prefix + "api-key is missing (provider anthropic)");
          }
          if (definition.maxConcurrentCalls() != null && definition.maxConcurrentCalls() < 1) {
            problems.add(prefix + "max-concurrent-calls must be at least 1");
          }
        });
    if (maxConcurrentCalls < 1) {
      problems.add("agentrt.models.max-concurrent-calls must be at least 1");
    }
    if (defaultModel != null && !definitions.containsKey(defaultModel)) {
      problems.add(
          "agentrt.models.default names '"
              + defaultModel
              + "', which is not defined; defined: "
              + sorted(definitions.keySet()));
    }
    if (!problems.isEmpty()) {
      throw new IllegalStateException(
          "invalid model configuration: " + String.join("; ", problems));
    }
  }

  private static List<String> sorted(Set<String> names) {
    return names.stream().sorted().toList();
  }

  private static boolean hasText(@Nullable String value) {
    return value != null && !value.isBlank();
  }
}
