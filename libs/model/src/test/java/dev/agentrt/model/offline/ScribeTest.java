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

class ScribeTest {

  private static final List<ToolSpec> TOOLS =
      List.of(
          new ToolSpec("ask_user", "Ask the person.", "{}"),
          new ToolSpec("write_note", "Save a note.", "{}"));

  private final OfflineModel model = new OfflineModel();
  private final List<ModelMessage> messages = new ArrayList<>(List.of(system("You are a scribe.")));

  @Test
  void writesTheNoteTitledByItsFirstWords() {
    messages.add(user("Save a note: Buy milk, eggs and bread for the weekend trip."));

    ModelReply reply = turn();

    assertThat(reply.toolCalls())
        .containsExactly(
            new ModelToolCall(
                "call_0_0",
                "write_note",
                "{\"title\":\"Buy milk, eggs and bread for\","
                    + "\"content\":\"Buy milk, eggs and bread for the weekend trip.\"}"));
  }

  @Test
  void saysWhereTheApprovedNoteWasSaved() {
    messages.add(user("Save a note: buy milk"));
    answer(turn(), "{\"path\":\"data/notes/buy-milk.md\",\"bytes\":20}");

    assertThat(turn().content()).isEqualTo("Saved the note data/notes/buy-milk.md.");
  }

  @Test
  void saysWhyARejectedNoteWasNotSaved() {
    messages.add(user("Save a note: buy milk"));
    answer(turn(), "{\"error_type\":\"rejected\",\"message\":\"not today\"}");

    assertThat(turn().content()).isEqualTo("I did not save the note: not today.");
  }

  @Test
  void saysWhyANoteCouldNotBeSaved() {
    messages.add(user("Save a note: buy milk"));
    answer(turn(), "{\"error_type\":\"interrupted\",\"message\":\"the runner died\"}");

    assertThat(turn().content()).isEqualTo("I could not save the note: the runner died.");
  }

  private ModelReply turn() {
    return model.complete(new ModelRequest(Purpose.AGENT_TURN, List.copyOf(messages), TOOLS, null));
  }

  private void answer(ModelReply reply, String result) {
    messages.add(ModelMessage.assistant(reply.content(), reply.toolCalls()));
    messages.add(tool(reply.toolCalls().getFirst().id(), result));
  }
}
