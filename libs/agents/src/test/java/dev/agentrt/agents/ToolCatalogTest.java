package dev.agentrt.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentrt.model.ToolSpec;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolCatalogTest {

  private static AgentDefinition agent(List<String> tools) {
    return new AgentDefinition("a", "d", "p", tools, 5, null, null);
  }

  private static ToolSpec spec(String name) {
    return new ToolSpec(name, name, "{\"type\":\"object\"}");
  }

  @Test
  void anAgentMayCallAskUserWhatItListsAndTheToolsOfServersItListsWithAWildcard() {
    AgentDefinition agent = agent(List.of("search_docs", "files__*", "web__fetch"));

    assertThat(ToolCatalog.allows(agent, "ask_user")).isTrue();
    assertThat(ToolCatalog.allows(agent, "search_docs")).isTrue();
    assertThat(ToolCatalog.allows(agent, "files__read_file")).isTrue();
    assertThat(ToolCatalog.allows(agent, "web__fetch")).isTrue();
    assertThat(ToolCatalog.allows(agent, "web__post")).isFalse();
    assertThat(ToolCatalog.allows(agent, "read_doc")).isFalse();
    assertThat(ToolCatalog.allows(agent, "filesystem__read_file")).isFalse();
  }

  @Test
  void theModelSeesAskUserFirstThenTheDefinedToolsTheAgentMayCall() {
    List<ToolSpec> defined =
        List.of(
            spec("read_doc"),
            spec("files__write"),
            spec("search_docs"),
            spec("ask_user"),
            spec("other__x"));

    assertThat(ToolCatalog.forAgent(agent(List.of("search_docs", "files__*")), defined))
        .extracting(ToolSpec::name)
        .containsExactly("ask_user", "files__write", "search_docs");
    assertThat(ToolCatalog.forAgent(agent(List.of("search_docs")), List.of()))
        .containsExactly(ToolCatalog.ASK_USER_SPEC);
  }

  @Test
  void onlyAnAgentWithDelegatesIsOfferedMessageAgentNamingThem() {
    AgentDefinition researcher =
        new AgentDefinition("researcher", "Researches.", "p", List.of(), 5, null, null);
    AgentDefinition analyst =
        new AgentDefinition(
            "analyst", "Analyses.", "p", List.of(), 5, null, null, List.of("researcher"));

    List<ToolSpec> offered = ToolCatalog.forAgent(analyst, List.of(), List.of(researcher));

    assertThat(offered).extracting(ToolSpec::name).containsExactly("ask_user", "message_agent");
    assertThat(offered.get(1).description()).contains("- researcher: Researches.");
    assertThat(offered.get(1).inputSchema())
        .contains("\"enum\":[\"researcher\"]")
        .contains("\"conversation_id\"");
    assertThat(ToolCatalog.forAgent(researcher, List.of(spec("message_agent")), List.of()))
        .extracting(ToolSpec::name)
        .containsExactly("ask_user");
  }

  @Test
  void anAgentsFileMayListBuiltInAndMcpToolsButNothingElse() {
    assertThat(ToolCatalog.mayList("calculator")).isTrue();
    assertThat(ToolCatalog.mayList("files__read_text_file")).isTrue();
    assertThat(ToolCatalog.mayList("files__*")).isTrue();
    assertThat(ToolCatalog.mayList("launch_rockets")).isFalse();
    assertThat(ToolCatalog.mayList("files__")).isFalse();
    assertThat(ToolCatalog.mayList("fi_les__x")).isFalse();
    assertThat(ToolCatalog.mayList("files__read file")).isFalse();
    assertThat(ToolCatalog.mayList("files__" + "x".repeat(60))).isFalse();

    String yaml =
        """
        agents:
          - name: a
            description: d
            systemPrompt: p
            tools: [launch_rockets]
        """;
    assertThatThrownBy(
            () ->
                AgentCatalog.read(
                    new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "agents.yml"))
        .hasMessageContaining("unknown tool 'launch_rockets'");
  }
}
