package dev.agentrt.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.store.ConfigVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Where the services read their agents from: agentrt.agents.file, else the classpath file. */
class AgentsAutoConfigurationTest {

  private final ApplicationContextRunner context =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(AgentsAutoConfiguration.class));

  @Test
  void withoutAFileTheClasspathAgentsAreRead() {
    context.run(
        app ->
            assertThat(app.getBean(AgentCatalog.class).all())
                .extracting(AgentDefinition::name)
                .contains("researcher"));
  }

  @Test
  void agentsFileReplacesTheClasspathAgents(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("bench-agents.yml");
    Files.writeString(
        file,
        """
        agents:
          - name: bench
            description: Calls tools as scripted.
            systemPrompt: Do as the task says.
            tools: [read_doc]
        """);

    context
        .withPropertyValues("agentrt.agents.file=" + file)
        .run(
            app -> {
              AgentCatalog agents = app.getBean(AgentCatalog.class);
              assertThat(agents.all()).extracting(AgentDefinition::name).containsExactly("bench");
              assertThat(agents.get("bench").tools()).containsExactly("read_doc");
            });
  }

  @Test
  void theConfigurationsVersionFollowsTheAgentsFileAndWhatShapesAnswersNotKeys(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("agents.yml");
    Files.writeString(
        file,
        """
        agents:
          - name: bench
            description: Calls tools as scripted.
            systemPrompt: Do as the task says.
        """);
    String[] model = {
      "agentrt.agents.file=" + file,
      "agentrt.models.definitions.gpt.provider=openai",
      "agentrt.models.definitions.gpt.base-url=http://localhost:11434/v1",
      "agentrt.models.definitions.gpt.model=llama3.2",
      "agentrt.models.definitions.gpt.api-key=one"
    };
    String version = version(model);

    assertThat(version).matches("[0-9a-f]{16}").isEqualTo(version(model));
    assertThat(version(with(model, "agentrt.models.definitions.gpt.api-key=another")))
        .as("a key changes no answer")
        .isEqualTo(version);
    assertThat(version(with(model, "agentrt.models.definitions.gpt.temperature=0.2")))
        .isNotEqualTo(version);
    Files.writeString(file, Files.readString(file).replace("as scripted", "as told"));
    assertThat(version(model)).isNotEqualTo(version);
  }

  private String version(String... properties) {
    String[] version = new String[1];
    context
        .withPropertyValues(properties)
        .run(app -> version[0] = app.getBean(ConfigVersion.class).value());
    return version[0];
  }

  private static String[] with(String[] properties, String more) {
    String[] all = java.util.Arrays.copyOf(properties, properties.length + 1);
    all[properties.length] = more;
    return all;
  }

  @Test
  void aMissingFileStopsStartUpNamingIt(@TempDir Path dir) {
    Path missing = dir.resolve("nope.yml");

    context
        .withPropertyValues("agentrt.agents.file=" + missing)
        .run(
            app ->
                assertThat(app)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(InvalidAgentsException.class)
                    .hasMessageContaining(missing.toString())
                    .hasMessageContaining("agentrt.agents.file"));
  }
}
