package dev.agentrt.model.offline;

import dev.agentrt.model.ModelMessage;
import java.util.List;

/**
 * One turn of the assistant, the fallback agent for requests no other agent fits: one answer, no
 * tool, saying what the system can do; asked to choose, it asks the person which option ({@link
 * Choice}). Rules are listed on {@link OfflineModel}.
 */
final class Assistant {

  /** How the shipped assistant's system prompt begins, which tells its turns apart. */
  static final String PROMPT_START = "You are the assistant of this agent runtime";

  private Assistant() {}

  /** Whether the turn is the assistant's: its system prompt begins with {@link #PROMPT_START}. */
  static boolean answers(List<ModelMessage> messages) {
    return !messages.isEmpty()
        && messages.getFirst().role().equals("system")
        && messages.getFirst().content() != null
        && messages.getFirst().content().startsWith(PROMPT_START);
  }

  /**
   * @param canAsk whether {@code ask_user} is offered
   */
  static ModelMessage turn(List<ModelMessage> messages, boolean canAsk) {
    String request =
        messages.reversed().stream()
            .filter(m -> m.role().equals("user") && m.content() != null)
            .map(m -> m.content().strip())
            .findFirst()
            .orElse("");
    if (Phrases.isChoice(request)) {
      return Choice.turn(messages, request, canAsk);
    }
    return ModelMessage.assistant(
        "I can't do \""
            + request
            + "\" myself. This system can research subjects in the project's documents"
            + " (\"Research Kafka\"), compare them (\"Compare Kafka and MongoDB\"), write a report"
            + " on several subjects (\"Write a report on Kafka, MongoDB and Redis\") and save notes"
            + " (\"Save a note: …\").",
        List.of());
  }
}
