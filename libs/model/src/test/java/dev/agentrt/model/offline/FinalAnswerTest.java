package dev.agentrt.model.offline;

import static dev.agentrt.model.ModelMessage.assistant;
import static dev.agentrt.model.ModelMessage.system;
import static dev.agentrt.model.ModelMessage.user;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelRequest.Purpose;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class FinalAnswerTest {

  private final OfflineModel model = new OfflineModel();

  @Test
  void successfulTaskIsAnsweredWithItsResultAsItIs() {
    String result =
        "Here is what I found about Kafka.\n\n**Kafka** (docs/kafka.md): Kafka is a log.\n\n"
            + "Sources: docs/kafka.md";

    ModelReply reply =
        finalAnswer(
            user("Research Kafka"),
            assistant("I started a researcher.", List.of()),
            user(
                "Agent: researcher\nInstruction: Research Kafka\nOutcome: success\nResult: "
                    + result
                    + "\n"));

    assertThat(reply.content()).isEqualTo(result);
    assertThat(reply.finishReason()).isEqualTo("stop");
  }

  @Test
  void failedTaskIsAnsweredWithAnApologyNamingTheInstructionAndTheError() {
    ModelReply reply =
        finalAnswer(
            user(
                "Agent: researcher\nInstruction: Research Kafka\nOutcome: failed\n"
                    + "Error: the step limit of 10 was reached"));

    assertThat(reply.content())
        .isEqualTo(
            "Sorry, the researcher could not finish \"Research Kafka\": the step limit of 10 was"
                + " reached");
  }

  @Test
  void aPlanThatEndedPartialIsAnsweredWithWhatWasDoneAndWhatWasNot() {
    String result =
        "## d (researcher)\n\nRedis is a cache.\n\nNot done:\n- a (researcher): failed: x";

    ModelReply reply =
        finalAnswer(
            user("Agent: plan\nInstruction: Write a report\nOutcome: partial\nResult: " + result));

    assertThat(reply.content()).isEqualTo(result);
  }

  private ModelReply finalAnswer(ModelMessage... history) {
    List<ModelMessage> messages = new ArrayList<>();
    messages.add(system("Write the chat's answer."));
    messages.addAll(Arrays.asList(history));
    return model.complete(new ModelRequest(Purpose.FINAL_ANSWER, messages, List.of(), null));
  }
}
