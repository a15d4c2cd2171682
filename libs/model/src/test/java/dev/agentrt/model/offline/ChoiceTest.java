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

/** The assistant asked to choose: it asks with options, then answers with the one chosen. */
class ChoiceTest {

  private static final List<ToolSpec> ASK_USER =
      List.of(new ToolSpec("ask_user", "Ask the person.", "{}"));

  private final OfflineModel model = new OfflineModel();
  private final List<ModelMessage> messages =
      new ArrayList<>(List.of(system(Assistant.PROMPT_START + ", for requests no one else fits.")));

  @Test
  void asksWhichColourWithThreeColours() {
    messages.add(user("Choose a colour for the logo"));

    assertThat(turn(ASK_USER).toolCalls())
        .containsExactly(
            new ModelToolCall(
                "call_0_0",
                "ask_user",
                "{\"question\":\"Which colour for the logo do you prefer?\","
                    + "\"options\":[\"Teal\",\"Amber\",\"Violet\"]}"));
  }

  @Test
  void offersTheOptionsTheRequestNames() {
    assertThat(askedFor("Pick a database: Kafka, MongoDB or Redis."))
        .isEqualTo(
            "{\"question\":\"Which database do you prefer?\","
                + "\"options\":[\"Kafka\",\"MongoDB\",\"Redis\"]}");
    assertThat(askedFor("Choose between Kafka and Redis"))
        .isEqualTo("{\"question\":\"Which one do you prefer?\",\"options\":[\"Kafka\",\"Redis\"]}");
    assertThat(askedFor("Choose a name for the project"))
        .isEqualTo(
            "{\"question\":\"Which name for the project do you prefer?\","
                + "\"options\":[\"Option A\",\"Option B\",\"Option C\"]}");
  }

  @Test
  void answersWithTheOptionChosen() {
    messages.add(user("Choose a colour for the logo"));
    ModelReply asked = turn(ASK_USER);
    messages.add(ModelMessage.assistant(asked.content(), asked.toolCalls()));
    messages.add(tool(asked.toolCalls().getFirst().id(), "Amber"));

    ModelReply answer = turn(ASK_USER);

    assertThat(answer.toolCalls()).isEmpty();
    assertThat(answer.content()).isEqualTo("You chose Amber.");
  }

  @Test
  void withoutAskUserItAnswersWithTheQuestionAndItsOptions() {
    messages.add(user("Choose a colour for the logo"));

    ModelReply reply = turn(List.of());

    assertThat(reply.toolCalls()).isEmpty();
    assertThat(reply.content())
        .isEqualTo("Which colour for the logo do you prefer? Choose one of: Teal, Amber, Violet.");
  }

  private String askedFor(String request) {
    messages.add(user(request));
    String arguments = turn(ASK_USER).toolCalls().getFirst().arguments();
    messages.removeLast();
    return arguments;
  }

  private ModelReply turn(List<ToolSpec> tools) {
    return model.complete(new ModelRequest(Purpose.AGENT_TURN, List.copyOf(messages), tools, null));
  }
}
