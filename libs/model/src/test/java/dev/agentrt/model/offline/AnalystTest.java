package dev.agentrt.model.offline;

import static dev.agentrt.model.ModelMessage.system;
import static dev.agentrt.model.ModelMessage.tool;
import static dev.agentrt.model.ModelMessage.user;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelRequest.Purpose;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.model.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The offline model as an agent offered {@code message_agent}: the analyst. */
class AnalystTest {

  private static final List<ToolSpec> TOOLS =
      List.of(
          new ToolSpec("ask_user", "Ask.", "{}"), new ToolSpec("message_agent", "Message.", "{}"));

  private final OfflineModel model = new OfflineModel();
  private final List<ModelMessage> messages =
      new ArrayList<>(List.of(system("You are an analyst.")));

  @Test
  void aComparisonSendsOneMessagePerSubjectInOneTurn() {
    messages.add(user("Compare Kafka, MongoDB and Redis"));

    assertThat(turn().toolCalls())
        .containsExactly(
            call("call_0_0", "{\"agent\":\"researcher\",\"message\":\"Research Kafka\"}"),
            call("call_0_1", "{\"agent\":\"researcher\",\"message\":\"Research MongoDB\"}"),
            call("call_0_2", "{\"agent\":\"researcher\",\"message\":\"Research Redis\"}"));
  }

  @Test
  void whenAllHaveAnsweredItWritesASectionPerSubjectWithEverySource() {
    messages.add(user("Compare Kafka and MongoDB"));
    ModelReply asked = turn();
    messages.add(ModelMessage.assistant(null, asked.toolCalls()));
    messages.add(
        tool(
            "call_0_0",
            "{\"agent\":\"researcher\",\"conversation_id\":\"c-1\",\"result\":\"Here is what I"
                + " found about Kafka.\\n\\n**Kafka** (docs/kafka.md): A log.\\n\\nSources:"
                + " docs/kafka.md\"}"));
    messages.add(
        tool(
            "call_0_1",
            "{\"error_type\":\"agent_failed\",\"message\":\"the researcher could not finish\"}"));

    ModelReply answer = turn();

    assertThat(answer.toolCalls()).isEmpty();
    assertThat(answer.content())
        .isEqualTo(
            "Here is what the researchers found about Kafka and MongoDB.\n\n## Kafka\n\nHere is"
                + " what I found about Kafka.\n\n**Kafka** (docs/kafka.md): A log.\n\n## MongoDB"
                + "\n\nThe researcher could not answer (agent_failed): the researcher could not"
                + " finish\n\nSources: docs/kafka.md");
  }

  @Test
  void aDiscussionSendsASecondMessageToTheSameResearcherThenAnswersFromBoth() {
    messages.add(user("Discuss Kafka with the researcher"));
    ModelReply first = turn();
    assertThat(first.toolCalls())
        .containsExactly(
            call("call_0_0", "{\"agent\":\"researcher\",\"message\":\"Research Kafka\"}"));
    messages.add(ModelMessage.assistant(null, first.toolCalls()));
    messages.add(
        tool(
            "call_0_0",
            "{\"agent\":\"researcher\",\"conversation_id\":\"c-1\",\"result\":\"A log.\\n\\n"
                + "Sources: docs/kafka.md\"}"));

    ModelReply second = turn();
    assertThat(second.toolCalls())
        .containsExactly(
            call(
                "call_1_0",
                "{\"agent\":\"researcher\",\"message\":\"What else should I know about Kafka?\","
                    + "\"conversation_id\":\"c-1\"}"));
    messages.add(ModelMessage.assistant(null, second.toolCalls()));
    messages.add(
        tool(
            "call_1_0",
            "{\"agent\":\"researcher\",\"conversation_id\":\"c-1\",\"result\":\"Topics.\\n\\n"
                + "Sources: docs/kafka.md, docs/topics.md\"}"));

    assertThat(turn().content())
        .isEqualTo(
            "I discussed Kafka with the researcher.\n\n## What it found\n\nA log.\n\n## What"
                + " else to know\n\nTopics.\n\nSources: docs/kafka.md, docs/topics.md");
  }

  @Test
  void theResearcherReadsTheSecondMessageAsTheSameSubject() {
    assertThat(Phrases.subjects("What else should I know about Kafka?")).containsExactly("Kafka");
  }

  @Test
  void guidanceWhileItsCallRunsIsTheRequestOfItsNextTurn() {
    messages.add(user("Discuss it with the researcher"));
    ModelReply first = turn();
    messages.add(ModelMessage.assistant(null, first.toolCalls()));
    messages.add(user("Focus on MongoDB instead")); // the person's guidance, while the call runs
    messages.add(
        tool(
            "call_0_0", "{\"agent\":\"researcher\",\"conversation_id\":\"c-1\",\"result\":\"x\"}"));

    ModelReply guided = turn();
    assertThat(guided.toolCalls())
        .containsExactly(
            call("call_1_0", "{\"agent\":\"researcher\",\"message\":\"Research MongoDB\"}"));
    messages.add(ModelMessage.assistant(null, guided.toolCalls()));
    messages.add(
        tool(
            "call_1_0",
            "{\"agent\":\"researcher\",\"conversation_id\":\"c-2\",\"result\":\"Documents."
                + "\\n\\nSources: docs/mongodb.md\"}"));

    assertThat(turn().content())
        .isEqualTo(
            "Here is what the researchers found about MongoDB.\n\n## MongoDB\n\nDocuments."
                + "\n\nSources: docs/mongodb.md");
  }

  private ModelReply turn() {
    return model.complete(new ModelRequest(Purpose.AGENT_TURN, messages, TOOLS, null));
  }

  private static ModelToolCall call(String id, String arguments) {
    return new ModelToolCall(id, "message_agent", arguments);
  }
}
