package dev.agentrt.model.offline;

import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelToolCall;
import java.util.List;
import java.util.regex.Pattern;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One turn of the assistant asked to choose ("Choose a colour for the logo"): it asks the person
 * with {@code ask_user} and options, then answers with the option chosen. Rules are listed on
 * {@link OfflineModel}.
 */
final class Choice {

  static final String ASK_USER = "ask_user";

  /** The options of a colour, when the request names none. */
  private static final List<String> COLOURS = List.of("Teal", "Amber", "Violet");

  /** The options of anything else, when the request names none. */
  private static final List<String> ANY = List.of("Option A", "Option B", "Option C");

  private static final Pattern COLOUR =
      Pattern.compile("\\bcolou?rs?\\b", Pattern.CASE_INSENSITIVE);

  private Choice() {}

  /**
   * @param request the latest {@code user} message: the choice asked for
   * @param canAsk whether {@code ask_user} is offered; when it is not, the turn answers with the
   *     question and its options instead
   */
  static ModelMessage turn(List<ModelMessage> messages, String request, boolean canAsk) {
    for (ModelMessage message : messages.reversed()) {
      if (message.role().equals("user")) {
        break; // asked nothing since the request
      }
      for (ModelToolCall call : message.toolCalls()) {
        if (call.name().equals(ASK_USER)) {
          return answer(chosen(messages, call.id()));
        }
      }
    }
    Phrases.Choosing choosing = Phrases.choosing(request);
    List<String> options = options(choosing);
    String question = question(choosing);
    if (!canAsk) {
      return answer(question + " Choose one of: " + String.join(", ", options) + ".");
    }
    ObjectNode arguments = JsonNodeFactory.instance.objectNode().put("question", question);
    options.forEach(arguments.putArray("options")::add);
    long turn = messages.stream().filter(m -> m.role().equals("assistant")).count();
    return ModelMessage.assistant(
        null, List.of(new ModelToolCall("call_" + turn + "_0", ASK_USER, arguments.toString())));
  }

  /** The options the request names; else three colours for a colour, three letters otherwise. */
  private static List<String> options(Phrases.Choosing choosing) {
    if (!choosing.options().isEmpty()) {
      return choosing.options();
    }
    return COLOUR.matcher(choosing.about()).find() ? COLOURS : ANY;
  }

  /** "Which colour for the logo do you prefer?", or "Which one do you prefer?". */
  private static String question(Phrases.Choosing choosing) {
    String about = choosing.about().isEmpty() ? "one" : choosing.about();
    return "Which " + about + " do you prefer?";
  }

  /** "You chose Amber.", from the person's answer to the question. */
  private static String chosen(List<ModelMessage> messages, String callId) {
    String answer =
        messages.stream()
            .filter(m -> m.role().equals("tool") && callId.equals(m.toolCallId()))
            .map(m -> m.content() == null ? "" : m.content().strip())
            .findFirst()
            .orElse("");
    return answer.isEmpty()
        ? "You did not choose any of them."
        : "You chose " + answer.replaceAll("[.!]+$", "") + ".";
  }

  private static ModelMessage answer(String text) {
    return ModelMessage.assistant(text, List.of());
  }
}
