package dev.agentrt.model.offline;

import dev.agentrt.model.ModelMessage;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The chat's answer from a task's outcome, read from the finalizer's last user message. Rules are
 * listed on {@link OfflineModel}.
 */
final class Finalizer {

  private Finalizer() {}

  static String answer(List<ModelMessage> messages) {
    String brief =
        messages.reversed().stream()
            .filter(m -> m.role().equals("user") && m.content() != null)
            .map(ModelMessage::content)
            .findFirst()
            .orElse("");
    if (field(brief, "Outcome").equals("success") || hasLine(brief, "Result")) {
      return rest(brief, "Result");
    }
    String agent = field(brief, "Agent");
    return "Sorry, the "
        + (agent.isEmpty() ? "agent" : agent)
        + " could not finish \""
        + field(brief, "Instruction")
        + "\": "
        + rest(brief, "Error");
  }

  /** Whether a line starts with {@code name: } (a plan that ended {@code partial} has a result). */
  private static boolean hasLine(String brief, String name) {
    return brief.lines().anyMatch(line -> line.startsWith(name + ": "));
  }

  /** The rest of the first line that starts with {@code name: }. */
  private static String field(String brief, String name) {
    return brief
        .lines()
        .filter(line -> line.startsWith(name + ": "))
        .map(line -> line.substring(name.length() + 2).strip())
        .findFirst()
        .orElse("");
  }

  /** Everything after the first {@code name: } at the start of a line, over several lines. */
  private static String rest(String brief, String name) {
    Matcher start = Pattern.compile("^" + name + ": ", Pattern.MULTILINE).matcher(brief);
    return start.find() ? brief.substring(start.end()).strip() : "";
  }
}
