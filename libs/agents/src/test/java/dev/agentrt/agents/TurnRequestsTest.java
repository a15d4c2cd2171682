package dev.agentrt.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.store.ConfigVersion;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.TurnInput;
import dev.agentrt.testing.InMemoryMongo;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A turn's request and the input its answer keeps, built from the stored conversation. */
class TurnRequestsTest {

  private static final AgentCatalog AGENTS =
      AgentCatalog.read(
          new ByteArrayInputStream(
              """
              agents:
                - name: analyst
                  description: Compares.
                  systemPrompt: You compare.
                  tools: [search_docs]
                  delegates: [researcher]
                  outputSchema: {type: object}
                - name: researcher
                  description: Researches.
                  systemPrompt: You research.
              """
                  .getBytes(StandardCharsets.UTF_8)),
          "test agents");

  private static InMemoryMongo mongo;
  private final List<SubAgentMessage> conversation = new ArrayList<>();

  @BeforeAll
  static void start() {
    mongo = InMemoryMongo.start();
  }

  @AfterAll
  static void stop() {
    mongo.close();
  }

  @BeforeEach
  void aSearchToolDefined() {
    mongo.clear();
    define("Search the documents.");
    add("system", "You compare.", List.of(), null);
    add("user", "Compare Kafka and MongoDB", List.of(), null);
    add("assistant", null, List.of(new RequestedToolCall("c1", "search_docs", "{}")), null);
    add("user", "Also Redis", List.of(), null); // came while the call ran
    add("tool", "{\"results\":[]}", List.of(), "c1");
  }

  @Test
  void theRequestHasTheModelsOrderTheAgentsToolsAndSchemaAndTheInputNamesThemAll() {
    TurnRequests.Turn turn = requests("v1").of(AGENTS.get("analyst"), conversation, "big");

    ModelRequest request = turn.request();
    assertThat(request.purpose()).isEqualTo(ModelRequest.Purpose.AGENT_TURN);
    assertThat(request.messages())
        .extracting(ModelMessage::role)
        .as("the follow-up after the result of the call it came during")
        .containsExactly("system", "user", "assistant", "tool", "user");
    assertThat(request.responseSchema()).isEqualTo("{\"type\":\"object\"}");
    assertThat(request.model()).isEqualTo("big");
    TurnInput input = turn.input();
    assertThat(input.seq()).isEqualTo(5);
    assertThat(input.messages()).isEqualTo(5);
    assertThat(input.tools()).containsExactly("ask_user", "message_agent", "search_docs");
    assertThat(input.configVersion()).isEqualTo("v1");
  }

  @Test
  void theToolsDigestChangesWithAToolsDefinitionAndOnlyThen() {
    String before =
        requests("v1").of(AGENTS.get("analyst"), conversation, null).input().toolsDigest();
    assertThat(requests("v2").of(AGENTS.get("analyst"), conversation, null).input().toolsDigest())
        .isEqualTo(before);

    mongo.clear();
    define("Search the project's documents.");

    assertThat(requests("v1").of(AGENTS.get("analyst"), conversation, null).input().toolsDigest())
        .isNotEqualTo(before);
  }

  private static TurnRequests requests(String version) {
    return new TurnRequests(
        AGENTS, new ToolDefinitions(mongo.template()), new ConfigVersion(version));
  }

  private static void define(String description) {
    mongo
        .template()
        .getCollection(ToolCatalog.DEFINITIONS)
        .insertOne(
            new Document("_id", "search_docs")
                .append("description", description)
                .append("inputSchema", "{\"type\":\"object\"}"));
  }

  private void add(String role, String content, List<RequestedToolCall> calls, String toolCallId) {
    conversation.add(
        new SubAgentMessage(
            "m" + conversation.size(),
            "sa-1",
            "task-1",
            "chat-1",
            conversation.size() + 1,
            role,
            content,
            calls,
            toolCallId,
            Instant.EPOCH,
            List.of()));
  }
}
