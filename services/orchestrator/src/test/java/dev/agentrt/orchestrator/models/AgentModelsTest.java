package dev.agentrt.orchestrator.models;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.InvalidAgentsException;
import dev.agentrt.orchestrator.testing.TestModels;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** An agent that names a model that is not configured stops start-up, naming the agent. */
class AgentModelsTest {

  private static final ModelNames MODELS = TestModels.named("offline", "fast");

  @Test
  void anAgentsUnknownModelStopsStartUpNamingTheAgentAndTheModelsThereAre() {
    AgentCatalog agents = agents("gpt-9");

    assertThatThrownBy(() -> new AgentModels(agents, MODELS).check())
        .isInstanceOf(InvalidAgentsException.class)
        .hasMessage(
            "the agents file: agent 'researcher' names an unknown model 'gpt-9'; known models:"
                + " [fast, offline]");
  }

  @Test
  void configuredModelsAndTheDefaultPass() {
    assertThatCode(() -> new AgentModels(agents("fast"), MODELS).check())
        .doesNotThrowAnyException();
    assertThatCode(() -> new AgentModels(AgentCatalog.fromClasspath("agents.yml"), MODELS).check())
        .doesNotThrowAnyException();
  }

  private static AgentCatalog agents(String model) {
    return AgentCatalog.read(
        new ByteArrayInputStream(
            ("""
            agents:
              - name: researcher
                description: Researches.
                systemPrompt: You research.
                model: %s
            """
                    .formatted(model))
                .getBytes(StandardCharsets.UTF_8)),
        "test agents");
  }
}
