package dev.agentrt.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.model.ModelRequest.Purpose;
import java.util.List;
import java.util.Map;
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
                          java.time.Duration.ofSeconds(30)));
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
          """)
  void startUpFailsNamingTheWrongProperty(String property, String message) {
    runner
        .withPropertyValues(property)
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

  private static ModelRequest hello() {
    return new ModelRequest(Purpose.DECISION, List.of(ModelMessage.user("hi")), List.of(), null);
  }
}
