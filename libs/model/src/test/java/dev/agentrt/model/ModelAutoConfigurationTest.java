package dev.agentrt.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.agentrt.model.ModelRequest.Purpose;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

class ModelAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ModelAutoConfiguration.class));

  @Test
  void offlineModelAnswersWhenNothingIsConfigured() {
    runner.run(
        context -> {
          ModelRouter router = context.getBean(ModelRouter.class);
          assertThat(router.names()).containsExactly("offline");
          assertThat(router.defaultModel()).isEqualTo("offline");
          assertThat(router.complete(hello()).content()).contains("Hello!");
        });
  }

  @Test
  void definedModelsAreRoutedByNameBesideTheOfflineModel() {
    runner
        .withPropertyValues(
            "agentrt.models.default=gpt",
            "agentrt.models.definitions.gpt.provider=openai",
            "agentrt.models.definitions.gpt.base-url=http://localhost:11434/v1",
            "agentrt.models.definitions.gpt.model=llama3.2",
            "agentrt.models.definitions.gpt.temperature=0.2",
            "agentrt.models.definitions.gpt.max-tokens=2048",
            "agentrt.models.definitions.gpt.timeout=30s",
            "agentrt.models.definitions.claude.provider=anthropic",
            "agentrt.models.definitions.claude.api-key=key")
        .run(
            context -> {
              ModelRouter router = context.getBean(ModelRouter.class);
              assertThat(router.names()).containsExactly("claude", "gpt", "offline");
              assertThat(router.defaultModel()).isEqualTo("gpt");
              assertThat(context.getBean(ModelsProperties.class).definitions().get("gpt"))
                  .isEqualTo(
                      new ModelsProperties.Definition(
                          "openai",
                          "http://localhost:11434/v1",
                          null,
                          "llama3.2",
                          0.2,
                          2048,
                          java.time.Duration.ofSeconds(30),
                          null));
            });
  }

  @Test
  void shortEnvironmentFormDefinesTheDefaultModel() {
    runner
        .withInitializer(
            context ->
                context
                    .getEnvironment()
                    .getPropertySources()
                    .addFirst(
                        new SystemEnvironmentPropertySource(
                            "environment",
                            Map.of(
                                "AGENTRT_MODEL_PROVIDER", "openai",
                                "AGENTRT_MODEL_BASE_URL", "http://localhost:11434/v1",
                                "AGENTRT_MODEL_API_KEY", "key",
                                "AGENTRT_MODEL_NAME", "llama3.2"))))
        .run(
            context -> {
              ModelRouter router = context.getBean(ModelRouter.class);
              assertThat(router.names()).containsExactly("default", "offline");
              assertThat(router.defaultModel()).isEqualTo("default");
            });
  }

  @Test
  void offlineLatencyAndTheCallLimitComeFromTheEnvironment() {
    runner
        .withInitializer(
            context ->
                context
                    .getEnvironment()
                    .getPropertySources()
                    .addFirst(
                        new SystemEnvironmentPropertySource(
                            "environment",
                            Map.of(
                                "AGENTRT_OFFLINE_MODEL_LATENCY", "1h",
                                "AGENTRT_MODELS_MAX_CONCURRENT_CALLS", "1"))))
        .run(
            context -> {
              ModelRouter router = context.getBean(ModelRouter.class);
              CompletableFuture<Throwable> first = failureOf(router);
              Thread firstCall = callThread.get();
              // The first call holds the one slot, sleeping its hour of latency.
              await().until(() -> firstCall.getState() == Thread.State.TIMED_WAITING);

              CompletableFuture<Throwable> second = failureOf(router);
              callThread.get().interrupt();
              assertThat(second.get())
                  .hasMessage(
                      "model offline: interrupted while waiting for one of its 1 call slots");

              firstCall.interrupt();
              assertThat(first.get()).hasMessage("offline model: interrupted");
            });
  }

  @Test
  void aModelsOwnCallLimitWinsOverTheGlobalOne() {
    runner
        .withPropertyValues(
            "agentrt.models.max-concurrent-calls=8",
            "agentrt.models.definitions.small.provider=offline",
            "agentrt.models.definitions.small.max-concurrent-calls=2")
        .run(
            context -> {
              ModelsProperties models = context.getBean(ModelsProperties.class);
              assertThat(models.maxConcurrentCalls(models.definitions().get("small"))).isEqualTo(2);
              assertThat(models.maxConcurrentCalls(ModelsProperties.Definition.offline()))
                  .isEqualTo(8);
            });
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          agentrt.models.definitions.x.provider=gemini | agentrt.models.definitions.x.provider 'gemini' is unknown; one of [anthropic, offline, openai]
          agentrt.models.definitions.x.model=m         | agentrt.models.definitions.x.provider is missing; one of [anthropic, offline, openai]
          agentrt.models.definitions.x.provider=openai | agentrt.models.definitions.x.base-url is missing (provider openai); agentrt.models.definitions.x.model is missing (provider openai)
          agentrt.models.definitions.x.provider=anthropic | agentrt.models.definitions.x.api-key is missing (provider anthropic)
          agentrt.models.definitions.offline.provider=openai | agentrt.models.definitions.offline.provider must be offline: the name offline is the offline model's
          agentrt.models.default=gpt                   | agentrt.models.default names 'gpt', which is not defined; defined: [offline]
          agentrt.models.max-concurrent-calls=0        | agentrt.models.max-concurrent-calls must be at least 1
          agentrt.models.definitions.x.provider=offline,agentrt.models.definitions.x.max-concurrent-calls=0 | agentrt.models.definitions.x.max-concurrent-calls must be at least 1
          """)
  void startUpFailsNamingTheWrongProperty(String properties, String message) {
    runner
        .withPropertyValues(properties.split(","))
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("invalid model configuration: " + message));
  }

  @Test
  void applicationsOwnPortReplacesTheRouter() {
    ModelPort configured =
        request -> {
          throw new ModelException("not called", false);
        };

    runner
        .withBean(ModelPort.class, () -> configured)
        .run(
            context -> {
              assertThat(context).getBean(ModelPort.class).isSameAs(configured);
              assertThat(context).doesNotHaveBean(ModelRouter.class);
            });
  }

  /** The thread of the last call {@link #failureOf} started. */
  private final AtomicReference<Thread> callThread = new AtomicReference<>();

  /** Calls the model on a virtual thread; completes with what the call threw (null if nothing). */
  private CompletableFuture<Throwable> failureOf(ModelPort model) {
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    callThread.set(
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    model.complete(hello());
                    failure.complete(null);
                  } catch (RuntimeException e) {
                    failure.complete(e);
                  }
                }));
    return failure;
  }

  private static ModelRequest hello() {
    return new ModelRequest(Purpose.DECISION, List.of(ModelMessage.user("hi")), List.of(), null);
  }
}
