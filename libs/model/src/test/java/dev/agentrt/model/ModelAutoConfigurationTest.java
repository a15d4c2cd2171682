package dev.agentrt.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.model.offline.OfflineModel;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class ModelAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ModelAutoConfiguration.class));

  @Test
  void offlineModelIsTheModelWhenNoneIsConfigured() {
    runner.run(
        context -> assertThat(context).getBean(ModelPort.class).isInstanceOf(OfflineModel.class));
  }

  @Test
  void configuredModelReplacesTheOfflineModel() {
    ModelPort configured =
        request -> {
          throw new ModelException("not called", false);
        };

    runner
        .withBean(ModelPort.class, () -> configured)
        .run(context -> assertThat(context).getBean(ModelPort.class).isSameAs(configured));
  }
}
