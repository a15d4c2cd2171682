package dev.agentrt.model.offline;

import static dev.agentrt.model.ModelMessage.system;
import static dev.agentrt.model.ModelMessage.user;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelRequest.Purpose;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The assistant, the fallback agent: one answer saying what the system can do, no tools. */
class AssistantTest {

  private final OfflineModel model = new OfflineModel();

  @Test
  void answersWithWhatTheSystemCanDo() {
    ModelReply reply = turn(Assistant.PROMPT_START + ", for requests no specialist agent fits.");

    assertThat(reply.toolCalls()).isEmpty();
    assertThat(reply.content())
        .startsWith("I can't do \"Sing me a song\" myself. This system can research subjects")
        .contains("\"Write a report on Kafka, MongoDB and Redis\"");
  }

  @Test
  void anotherAgentWithoutToolsIsNotTheAssistant() {
    assertThat(turn("You are a poet.").content()).doesNotStartWith("I can't do");
  }

  private ModelReply turn(String systemPrompt) {
    return model.complete(
        new ModelRequest(
            Purpose.AGENT_TURN,
            List.of(system(systemPrompt), user("Sing me a song")),
            List.of(),
            null));
  }
}
