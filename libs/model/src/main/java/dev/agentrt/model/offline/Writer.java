package dev.agentrt.model.offline;

import dev.agentrt.model.ModelMessage;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One turn of the writer, a plan's node that writes a report from the results of the nodes it
 * depends on, which its instruction carries: one section per subject, in order, each with the
 * sources its material named. No tools. Rules are listed on {@link OfflineModel}.
 */
final class Writer {

  /** A dependency's section in a plan node's instruction: {@code ## <node> (<agent>): <task>}. */
  private static final Pattern MATERIAL =
      Pattern.compile("^## \\S+ \\([^)]*\\): .*$", Pattern.MULTILINE);

  private static final String SOURCES = "Sources:";

  private Writer() {}

  /** Whether the request asks for a report: "Write a report on X, Y and Z". */
  static boolean writes(List<ModelMessage> messages) {
    return Phrases.isReportRequest(request(messages));
  }

  static ModelMessage turn(List<ModelMessage> messages) {
    String request = request(messages);
    List<String> subjects = Phrases.reportSubjects(request.lines().findFirst().orElse(""));
    List<String> material = material(request);
    if (material.isEmpty()) {
      return answer("I have no material to write the report from.");
    }
    List<String> parts = new ArrayList<>();
    parts.add("# Report on " + Phrases.join(subjects));
    for (int i = 0; i < Math.max(subjects.size(), material.size()); i++) {
      String subject = i < subjects.size() ? subjects.get(i) : "Part " + (i + 1);
      parts.add(
          "## "
              + subject
              + "\n\n"
              + (i < material.size() ? section(material.get(i)) : "No material came for it."));
    }
    return answer(String.join("\n\n", parts));
  }

  /** The material's text without its sources line, then its sources on a line of their own. */
  private static String section(String material) {
    Set<String> sources = new LinkedHashSet<>();
    List<String> kept = new ArrayList<>();
    for (String line : material.strip().split("\n")) {
      if (line.startsWith(SOURCES)) {
        for (String source : line.substring(SOURCES.length()).split(",")) {
          if (!source.isBlank()) {
            sources.add(source.strip());
          }
        }
      } else {
        kept.add(line);
      }
    }
    String text = String.join("\n", kept).strip();
    return sources.isEmpty()
        ? text + "\n\nSources: none named"
        : text + "\n\n" + SOURCES + " " + String.join(", ", sources);
  }

  /** The texts under each dependency's heading, in order. */
  private static List<String> material(String request) {
    Matcher heading = MATERIAL.matcher(request);
    List<Integer> starts = new ArrayList<>();
    List<Integer> ends = new ArrayList<>();
    while (heading.find()) {
      starts.add(heading.start());
      ends.add(heading.end());
    }
    List<String> sections = new ArrayList<>();
    for (int i = 0; i < starts.size(); i++) {
      int end = i + 1 < starts.size() ? starts.get(i + 1) : request.length();
      sections.add(request.substring(ends.get(i), end).strip());
    }
    return sections;
  }

  /** The task's instruction: the first user message. */
  private static String request(List<ModelMessage> messages) {
    return messages.stream()
        .filter(m -> m.role().equals("user") && m.content() != null)
        .map(ModelMessage::content)
        .findFirst()
        .orElse("");
  }

  private static ModelMessage answer(String text) {
    return ModelMessage.assistant(text, List.of());
  }
}
