package dev.agentrt.agents;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What an {@code ask_user} call asks, read from its arguments ({@code {question, options?}}) the
 * same way by everyone who shows or answers it: the agent loop, the notifier, the orchestrator.
 */
public final class AskUser {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private AskUser() {}

  /**
   * The question for the person, ending with its options when it offers some ({@code Which one?
   * Choose one of: Kafka, MongoDB.}); the assistant message's content, or a plain question, when
   * the arguments hold none.
   */
  public static String question(String arguments, @Nullable String content) {
    String question = read(arguments).path("question").asString("");
    if (question.isBlank()) {
      question = content != null && !content.isBlank() ? content : "Could you tell me more?";
    }
    List<String> options = options(arguments);
    return options.isEmpty()
        ? question
        : question.strip() + " Choose one of: " + String.join(", ", options) + ".";
  }

  /** The options the person picks from, in order; empty for an open question. */
  public static List<String> options(String arguments) {
    List<String> options = new ArrayList<>();
    for (JsonNode option : read(arguments).path("options")) {
      if (option.isString() && !option.asString().isBlank()) {
        options.add(option.asString().strip());
      }
    }
    return List.copyOf(options);
  }

  private static JsonNode read(String arguments) {
    try {
      return JSON.readTree(arguments);
    } catch (RuntimeException notJson) {
      return JSON.missingNode();
    }
  }
}
