package dev.agentrt.model.offline;

import dev.agentrt.model.ModelMessage;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.MissingNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The orchestrator's decision about the person's latest message, as the JSON text the decision
 * schema asks for. Rules are listed on {@link OfflineModel}.
 */
final class Decider {

  private static final String CONTEXT_PREFIX = "Context: ";
  private static final String REPAIR_PREFIX = "Your previous decision was invalid";
  private static final String RESEARCHER = "researcher";
  private static final String ANALYST = "analyst";
  private static final String SCRIBE = "scribe";
  private static final String WRITER = "writer";
  private static final String ASSISTANT = "assistant";

  /** The confidence of a rule that recognised the message. */
  private static final double SURE = 0.9;

  /** The confidence of the guess for a message no rule recognised: below the default minimum. */
  private static final double UNSURE = 0.3;

  private static final String HELP =
      "Hello! I can research subjects in the project's documents for you: try \"Research Kafka\""
          + " or \"Research Kafka and MongoDB\". After an answer, say \"Also …\" or \"What about"
          + " …\" to follow up.";
  private static final String NOT_UNDERSTOOD =
      "I'm not sure what you'd like me to do. I can research subjects in the project's documents:"
          + " try \"Research <subject>\".";
  private static final String NO_AGENTS = "I have no agent to put on that task.";

  private Decider() {}

  static String decide(List<ModelMessage> messages) {
    String message = personsMessage(messages);
    JsonNode context = context(messages);
    if (Phrases.isGreeting(message)) {
      return answer(HELP);
    }
    if (Phrases.noteToSave(message).isPresent() && lists(context, SCRIBE)) {
      return newTask(SCRIBE, message, "The message is a note to save: the scribe keeps notes.");
    }
    if (Phrases.isFollowUp(message)) {
      String subAgentId = lastStartedSubAgent(context);
      if (subAgentId != null) {
        return routed(
            Json.object("action", "reactivate", "subAgentId", subAgentId, "message", message),
            SURE,
            "The message follows up on the chat's last task.");
      }
    }
    if (Phrases.isReportRequest(message) && lists(context, WRITER) && lists(context, RESEARCHER)) {
      List<String> subjects = Phrases.reportSubjects(message);
      if (!subjects.isEmpty()) {
        return plan(subjects, message);
      }
    }
    if ((Phrases.isComparison(message) || Phrases.discussion(message).isPresent())
        && lists(context, ANALYST)) {
      return newTask(ANALYST, message, "The message asks for a comparison or a discussion.");
    }
    if (Phrases.isResearchRequest(message)) {
      String agent = agentFor(context);
      return agent == null
          ? answer(NO_AGENTS)
          : newTask(agent, message, "The message asks to research a subject.");
    }
    if (Phrases.isChoice(message) && lists(context, ASSISTANT)) {
      return newTask(
          ASSISTANT, message, "The message asks for a choice: the assistant asks you which.");
    }
    if (lists(context, ASSISTANT)) {
      return routed(
          Json.object("action", "new_task", "agent", ASSISTANT, "instruction", message),
          UNSURE,
          "No rule recognised the message; the assistant says what the system can do.");
    }
    return answer(NOT_UNDERSTOOD);
  }

  /** The last user message that is not the orchestrator's repair prompt. */
  private static String personsMessage(List<ModelMessage> messages) {
    for (ModelMessage message : messages.reversed()) {
      String content = message.content() == null ? "" : message.content();
      if (message.role().equals("user") && !content.startsWith(REPAIR_PREFIX)) {
        return content;
      }
    }
    return "";
  }

  /** The JSON after {@code Context: } in the system message; a missing node if there is none. */
  private static JsonNode context(List<ModelMessage> messages) {
    return messages.stream()
        .filter(m -> m.role().equals("system") && m.content() != null)
        .flatMap(m -> m.content().lines())
        .filter(line -> line.startsWith(CONTEXT_PREFIX))
        .findFirst()
        .map(line -> Json.parse(line.substring(CONTEXT_PREFIX.length())))
        .orElse(MissingNode.getInstance());
  }

  /** The sub-agent of the most recent task that can still be woken (not failed or cancelled). */
  private static @Nullable String lastStartedSubAgent(JsonNode context) {
    String subAgentId = null;
    for (JsonNode task : context.path("tasks")) {
      String id = task.path("subAgentId").asString("");
      String status = task.path("status").asString("");
      if (!id.isBlank() && !status.equals("failed") && !status.equals("cancelled")) {
        subAgentId = id;
      }
    }
    return subAgentId;
  }

  private static boolean lists(JsonNode context, String agent) {
    for (JsonNode listed : context.path("agents")) {
      if (listed.path("name").asString("").equals(agent)) {
        return true;
      }
    }
    return false;
  }

  private static @Nullable String agentFor(JsonNode context) {
    String first = null;
    for (JsonNode agent : context.path("agents")) {
      String name = agent.path("name").asString("");
      if (name.equals(RESEARCHER)) {
        return name;
      }
      if (first == null && !name.isBlank()) {
        first = name;
      }
    }
    return first;
  }

  /**
   * A researcher node per subject ({@code research-1}, {@code research-2}, …), no dependencies, and
   * a {@code write} node for the writer that depends on all of them, with the message as written.
   */
  private static String plan(List<String> subjects, String message) {
    ArrayNode nodes = JsonNodeFactory.instance.arrayNode();
    List<String> researchers = new ArrayList<>();
    for (int i = 0; i < subjects.size(); i++) {
      String id = "research-" + (i + 1);
      researchers.add(id);
      nodes
          .addObject()
          .put("id", id)
          .put("agent", RESEARCHER)
          .put("instruction", "Research " + subjects.get(i))
          .putArray("dependsOn");
    }
    ObjectNode writer =
        nodes.addObject().put("id", "write").put("agent", WRITER).put("instruction", message);
    researchers.forEach(writer.putArray("dependsOn")::add);
    ObjectNode plan = JsonNodeFactory.instance.objectNode().put("action", "plan");
    plan.set("nodes", nodes);
    return routed(
        plan.toString(),
        SURE,
        "A report on several subjects: a researcher for each, then the writer.");
  }

  private static String newTask(String agent, String instruction, String reason) {
    return routed(
        Json.object("action", "new_task", "agent", agent, "instruction", instruction),
        SURE,
        reason);
  }

  /** The decision with how sure the rule that chose it is, and why it chose it. */
  private static String routed(String decision, double confidence, String reason) {
    return ((ObjectNode) Json.parse(decision))
        .put("confidence", confidence)
        .put("reason", reason)
        .toString();
  }

  private static String answer(String text) {
    return Json.object("action", "answer", "answer", text);
  }
}
