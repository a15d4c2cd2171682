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
import java.util.List;
import org.junit.jupiter.api.Test;

class DecisionTest {

  private static final String SCHEMA = "{\"type\":\"object\"}";
  private static final String RESEARCH_ROUTING =
      "\"confidence\":0.9,\"reason\":\"The message asks to research a subject.\"";
  private static final String AGENTS =
      "\"agents\":[{\"name\":\"coder\",\"description\":\"Writes code.\"},"
          + "{\"name\":\"researcher\",\"description\":\"Researches documents.\"}]";
  private static final String NO_TASKS = "{" + AGENTS + ",\"tasks\":[]}";
  private static final String WITH_ASSISTANT =
      "{\"agents\":[{\"name\":\"assistant\",\"description\":\"x\"},"
          + "{\"name\":\"researcher\",\"description\":\"y\"}],\"tasks\":[]}";
  private static final String TWO_TASKS =
      "{"
          + AGENTS
          + ",\"tasks\":["
          + "{\"taskId\":\"t-1\",\"subAgentId\":\"sa-1\",\"agent\":\"researcher\","
          + "\"status\":\"success\",\"result\":\"Kafka is a log.\"},"
          + "{\"taskId\":\"t-2\",\"subAgentId\":\"sa-2\",\"agent\":\"researcher\","
          + "\"status\":\"success\",\"result\":\"MongoDB stores documents.\"},"
          + "{\"taskId\":\"t-3\",\"agent\":\"researcher\",\"status\":\"created\"}]}";

  private final OfflineModel model = new OfflineModel();

  @Test
  void greetingIsAnsweredDirectly() {
    for (String greeting :
        List.of("hi", "Hello!", "hey there", "Good morning", "thanks", "Thank you!", "help")) {
      assertThat(decide(NO_TASKS, greeting))
          .as(greeting)
          .isEqualTo(
              "{\"action\":\"answer\",\"answer\":\"Hello! I can research subjects in the"
                  + " project's documents for you: try \\\"Research Kafka\\\" or \\\"Research"
                  + " Kafka and MongoDB\\\". After an answer, say \\\"Also …\\\" or \\\"What"
                  + " about …\\\" to follow up.\"}");
    }
    assertThat(decide(NO_TASKS, "What can you do?")).contains("\"action\":\"answer\"");
    assertThat(decide(NO_TASKS, "who are you")).contains("\"action\":\"answer\"");
  }

  @Test
  void researchRequestStartsATaskForTheResearcherWithTheMessageAsWritten() {
    assertThat(decide(NO_TASKS, "Research Kafka and MongoDB"))
        .isEqualTo(
            "{\"action\":\"new_task\",\"agent\":\"researcher\","
                + "\"instruction\":\"Research Kafka and MongoDB\","
                + RESEARCH_ROUTING
                + "}");
    assertThat(decide(NO_TASKS, "Research"))
        .isEqualTo(
            "{\"action\":\"new_task\",\"agent\":\"researcher\",\"instruction\":\"Research\","
                + RESEARCH_ROUTING
                + "}");
    assertThat(decide(NO_TASKS, "tell me about Redis")).contains("\"action\":\"new_task\"");
    assertThat(decide(NO_TASKS, "Look up the outbox pattern")).contains("\"action\":\"new_task\"");
  }

  @Test
  void aReportOnSeveralSubjectsIsAPlanWithAResearcherPerSubjectAndTheWriterAfterAll() {
    String withWriter =
        "{\"agents\":[{\"name\":\"researcher\",\"description\":\"x\"},"
            + "{\"name\":\"writer\",\"description\":\"y\"}],\"tasks\":[]}";

    assertThat(decide(withWriter, "Write a report on Kafka, MongoDB and Redis"))
        .isEqualTo(
            "{\"action\":\"plan\",\"nodes\":["
                + "{\"id\":\"research-1\",\"agent\":\"researcher\","
                + "\"instruction\":\"Research Kafka\",\"dependsOn\":[]},"
                + "{\"id\":\"research-2\",\"agent\":\"researcher\","
                + "\"instruction\":\"Research MongoDB\",\"dependsOn\":[]},"
                + "{\"id\":\"research-3\",\"agent\":\"researcher\","
                + "\"instruction\":\"Research Redis\",\"dependsOn\":[]},"
                + "{\"id\":\"write\",\"agent\":\"writer\","
                + "\"instruction\":\"Write a report on Kafka, MongoDB and Redis\","
                + "\"dependsOn\":[\"research-1\",\"research-2\",\"research-3\"]}],"
                + "\"confidence\":0.9,\"reason\":\"A report on several subjects: a researcher for"
                + " each, then the writer.\"}");
    assertThat(decide(NO_TASKS, "Write a report on Kafka and Redis"))
        .as("no writer: no plan")
        .contains("\"action\":\"answer\"");
  }

  @Test
  void aComparisonOrADiscussionGoesToTheAnalystWhenThereIsOne() {
    String withAnalyst =
        "{\"agents\":[{\"name\":\"analyst\",\"description\":\"x\"},"
            + "{\"name\":\"researcher\",\"description\":\"y\"}],\"tasks\":[]}";

    assertThat(decide(withAnalyst, "Compare Kafka and MongoDB"))
        .isEqualTo(
            "{\"action\":\"new_task\",\"agent\":\"analyst\","
                + "\"instruction\":\"Compare Kafka and MongoDB\",\"confidence\":0.9,"
                + "\"reason\":\"The message asks for a comparison or a discussion.\"}");
    assertThat(decide(withAnalyst, "Discuss Kafka with the researcher"))
        .contains("\"agent\":\"analyst\"");
    assertThat(decide(withAnalyst, "Research Kafka")).contains("\"agent\":\"researcher\"");
    assertThat(decide(NO_TASKS, "Compare Kafka and MongoDB"))
        .as("no analyst: the researcher compares")
        .contains("\"agent\":\"researcher\"");
  }

  @Test
  void aNoteToSaveGoesToTheScribeWhenThereIsOne() {
    String withScribe =
        "{\"agents\":[{\"name\":\"researcher\",\"description\":\"x\"},"
            + "{\"name\":\"scribe\",\"description\":\"y\"}],\"tasks\":[]}";

    assertThat(decide(withScribe, "Save a note: buy milk"))
        .isEqualTo(
            "{\"action\":\"new_task\",\"agent\":\"scribe\","
                + "\"instruction\":\"Save a note: buy milk\",\"confidence\":0.9,"
                + "\"reason\":\"The message is a note to save: the scribe keeps notes.\"}");
    assertThat(decide(withScribe, "save note:Call Ana")).contains("\"agent\":\"scribe\"");
    assertThat(decide(NO_TASKS, "Save a note: buy milk"))
        .as("no scribe: not understood")
        .contains("\"action\":\"answer\"");
  }

  @Test
  void researchGoesToTheFirstAgentWhenThereIsNoResearcher() {
    String context = "{\"agents\":[{\"name\":\"coder\",\"description\":\"x\"}],\"tasks\":[]}";

    assertThat(decide(context, "Investigate the build"))
        .isEqualTo(
            "{\"action\":\"new_task\",\"agent\":\"coder\","
                + "\"instruction\":\"Investigate the build\","
                + RESEARCH_ROUTING
                + "}");
  }

  @Test
  void researchWithoutAnyAgentIsAnsweredDirectly() {
    assertThat(decide("{\"agents\":[],\"tasks\":[]}", "Research Kafka"))
        .isEqualTo("{\"action\":\"answer\",\"answer\":\"I have no agent to put on that task.\"}");
  }

  @Test
  void followUpReactivatesTheSubAgentOfTheMostRecentStartedTask() {
    assertThat(decide(TWO_TASKS, "Also Redis"))
        .isEqualTo(
            "{\"action\":\"reactivate\",\"subAgentId\":\"sa-2\",\"message\":\"Also Redis\","
                + "\"confidence\":0.9,\"reason\":\"The message follows up on the chat's last"
                + " task.\"}");
    assertThat(decide(TWO_TASKS, "What about Redis?")).contains("\"subAgentId\":\"sa-2\"");
    assertThat(decide(TWO_TASKS, "and Redis?")).contains("\"action\":\"reactivate\"");
    assertThat(decide(TWO_TASKS, "follow-up: Redis")).contains("\"action\":\"reactivate\"");
  }

  @Test
  void followUpSkipsASubAgentThatFailed() {
    String lastFailed =
        "{"
            + AGENTS
            + ",\"tasks\":[{\"taskId\":\"t-1\",\"subAgentId\":\"sa-1\",\"agent\":\"researcher\","
            + "\"status\":\"success\"},{\"taskId\":\"t-2\",\"subAgentId\":\"sa-2\","
            + "\"agent\":\"researcher\",\"status\":\"failed\"}]}";

    assertThat(decide(lastFailed, "Also Redis")).contains("\"subAgentId\":\"sa-1\"");
  }

  @Test
  void followUpWithoutAStartedTaskIsNotUnderstood() {
    String onlyUnstarted =
        "{" + AGENTS + ",\"tasks\":[{\"taskId\":\"t-3\",\"agent\":\"researcher\"}]}";

    assertThat(decide(onlyUnstarted, "What about Redis?"))
        .isEqualTo(
            "{\"action\":\"answer\",\"answer\":\"I'm not sure what you'd like me to do. I can"
                + " research subjects in the project's documents: try \\\"Research"
                + " <subject>\\\".\"}");
  }

  @Test
  void aChoiceGoesToTheAssistantWhenItIsListed() {
    assertThat(decide(WITH_ASSISTANT, "Choose a colour for the logo"))
        .isEqualTo(
            "{\"action\":\"new_task\",\"agent\":\"assistant\","
                + "\"instruction\":\"Choose a colour for the logo\",\"confidence\":0.9,"
                + "\"reason\":\"The message asks for a choice: the assistant asks you which.\"}");
    assertThat(decide(WITH_ASSISTANT, "pick one")).contains("\"confidence\":0.9");
    assertThat(decide(NO_TASKS, "Choose a colour for the logo"))
        .as("no assistant: not understood")
        .contains("\"action\":\"answer\"");
  }

  @Test
  void anythingElseGoesToTheAssistantWithLowConfidenceWhenItIsListed() {
    assertThat(decide(WITH_ASSISTANT, "The weather is nice"))
        .isEqualTo(
            "{\"action\":\"new_task\",\"agent\":\"assistant\","
                + "\"instruction\":\"The weather is nice\",\"confidence\":0.3,"
                + "\"reason\":\"No rule recognised the message; the assistant says what the"
                + " system can do.\"}");
    assertThat(decide(WITH_ASSISTANT, "Research Kafka"))
        .as("a recognised message still goes where its rule says")
        .contains("\"agent\":\"researcher\"");
  }

  @Test
  void anythingElseWithoutAnAssistantIsAnsweredWithWhatToTry() {
    assertThat(decide(TWO_TASKS, "The weather is nice"))
        .startsWith("{\"action\":\"answer\",\"answer\":\"I'm not sure what you'd like me to do.");
  }

  @Test
  void missingOrBrokenContextStillGivesAValidDecision() {
    List<ModelMessage> messages = List.of(system("You decide."), user("Research Kafka"));
    assertThat(complete(messages).content())
        .isEqualTo("{\"action\":\"answer\",\"answer\":\"I have no agent to put on that task.\"}");
    assertThat(decide("{not json", "Hi")).contains("\"action\":\"answer\"");
  }

  @Test
  void repairPromptGetsAValidDecisionForThePersonsLastMessage() {
    List<ModelMessage> messages = new ArrayList<>(conversation(NO_TASKS, "Research Kafka"));
    messages.add(assistant("{\"action\":\"dance\"}", List.of()));
    messages.add(user("Your previous decision was invalid: action must be one of ... Try again."));

    assertThat(complete(messages).content())
        .isEqualTo(
            "{\"action\":\"new_task\",\"agent\":\"researcher\",\"instruction\":\"Research Kafka\","
                + RESEARCH_ROUTING
                + "}");
  }

  @Test
  void decisionUsesOnlyTheLatestMessageOfTheHistory() {
    List<ModelMessage> messages =
        List.of(
            system("You decide.\nContext: " + TWO_TASKS),
            user("Research Kafka"),
            assistant("Kafka is a log.", List.of()),
            user("thanks"));

    ModelReply reply = complete(messages);

    assertThat(reply.content()).startsWith("{\"action\":\"answer\",\"answer\":\"Hello!");
    assertThat(reply.toolCalls()).isEmpty();
    assertThat(reply.finishReason()).isEqualTo("stop");
  }

  private String decide(String context, String message) {
    return complete(conversation(context, message)).content();
  }

  private static List<ModelMessage> conversation(String context, String message) {
    return List.of(
        system("You are the orchestrator.\nContext: " + context + "\nAnswer with JSON."),
        user(message));
  }

  private ModelReply complete(List<ModelMessage> messages) {
    return model.complete(new ModelRequest(Purpose.DECISION, messages, List.of(), SCHEMA));
  }
}
