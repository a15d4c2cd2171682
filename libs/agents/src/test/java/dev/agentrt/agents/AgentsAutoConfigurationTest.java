package dev.agentrt.agents;

import static org.assertj.core.api.Assertions.assertThat;

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
