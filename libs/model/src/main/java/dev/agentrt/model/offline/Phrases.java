package dev.agentrt.model.offline;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the offline model reads a person's words: greetings, follow-up markers, research verbs, and
 * the subjects of a research request. Phrases match case-insensitively at the start of the trimmed
 * text, as whole words.
 */
final class Phrases {

  private static final List<String> GREETINGS =
      List.of(
          "hi",
          "hello",
          "hey",
          "good morning",
          "good afternoon",
          "good evening",
          "thanks",
          "thank you",
          "how are you",
          "who are you",
          "what can you do",
          "help");

  private static final List<String> FOLLOW_UP_MARKERS =
      List.of(
          "follow up",
          "follow-up",
          "also",
          "what else should i know about",
          "what about",
          "how about",
          "and");

  private static final Pattern DISCUSSION =
      Pattern.compile(
          "discuss\\s+(.+?)\\s+with\\s+(?:the\\s+|a\\s+)?[a-z_-]+[.!?]*", Pattern.CASE_INSENSITIVE);

  private static final List<String> RESEARCH_VERBS =
      List.of(
          "research",
          "find out",
          "find",
          "look into",
          "look up",
          "lookup",
          "compare",
          "analyze",
          "analyse",
          "investigate",
          "search",
          "explore",
          "study",
          "tell me about",
          "focus on");

  private static final List<String> REPORT = List.of("write a report");

  private static final List<String> CHOICE_VERBS = List.of("choose", "pick");

  /** Words before the options a choice names: "Choose between Kafka and Redis". */
  private static final List<String> OPTIONS_FOLLOW = List.of("between", "from", "among", "one of");

  private static final Pattern OPTION_SEPARATORS =
      Pattern.compile(",|\\s+or\\s+|\\s+and\\s+", Pattern.CASE_INSENSITIVE);

  /** Words that may surround a subject without being part of it. */
  private static final List<String> FILLERS =
      List.of("about", "on", "for me", "for", "the", "a", "an", "please", "me", "instead");

  private static final List<String> PRONOUNS =
      List.of("it", "this", "that", "these", "those", "them", "something", "anything", "stuff");

  private static final Pattern SEPARATORS =
      Pattern.compile("\\s+and\\s+|,|\\s+vs\\.?\\s+|\\s+versus\\s+|&", Pattern.CASE_INSENSITIVE);

  private static final String EDGE_PUNCTUATION = "?.!,:;\"'";

  private Phrases() {}

  private static final Pattern SAVE_NOTE =
      Pattern.compile(
          "^\\s*save\\s+(?:a\\s+)?note\\s*:\\s*(\\S.*)$",
          Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

  /** The text of "Save a note: <text>" (or "Save note: …"), trimmed; empty for anything else. */
  static Optional<String> noteToSave(String text) {
    Matcher matcher = SAVE_NOTE.matcher(text);
    return matcher.matches() ? Optional.of(matcher.group(1).strip()) : Optional.empty();
  }

  static boolean isGreeting(String text) {
    return leading(text.strip(), GREETINGS).isPresent();
  }

  static boolean isFollowUp(String text) {
    return leading(text.strip(), FOLLOW_UP_MARKERS).isPresent();
  }

  /** "Compare X and Y": a request the analyst splits, one researcher per subject. */
  static boolean isComparison(String text) {
    return leading(text.strip(), List.of("compare")).isPresent();
  }

  /** The subject of "Discuss X with the researcher", or empty when the text is not one. */
  static Optional<String> discussion(String text) {
    Matcher matcher = DISCUSSION.matcher(text.strip());
    return matcher.matches()
        ? Optional.of(trimEdges(matcher.group(1))).filter(subject -> !subject.isEmpty())
        : Optional.empty();
  }

  /** "Write a report on X, Y and Z": a plan, a researcher per subject, then the writer. */
  static boolean isReportRequest(String text) {
    return leading(text.strip(), REPORT).isPresent();
  }

  /** The subjects of a report request: "Write a report on Kafka and Redis" → [Kafka, Redis]. */
  static List<String> reportSubjects(String request) {
    return subjects(withoutLeading(request.strip(), REPORT));
  }

  /** "Choose a colour for the logo": a choice the assistant asks the person to make. */
  static boolean isChoice(String text) {
    return leading(text.strip(), CHOICE_VERBS).isPresent();
  }

  /**
   * What a choice is about, and the options it names (none unless two or more): "Choose a colour
   * for the logo" → (colour for the logo, []); "Pick a database: Kafka, MongoDB or Redis" →
   * (database, [Kafka, MongoDB, Redis]); "Choose between Kafka and Redis" → ("", [Kafka, Redis]).
   */
  static Choosing choosing(String request) {
    String rest = withoutLeading(request.strip(), CHOICE_VERBS);
    String about = rest;
    String named = "";
    int colon = rest.indexOf(':');
    Optional<String> introduced = leading(rest, OPTIONS_FOLLOW);
    if (colon >= 0) {
      about = rest.substring(0, colon);
      named = rest.substring(colon + 1);
    } else if (introduced.isPresent()) {
      about = "";
      named = rest.substring(introduced.get().length());
    }
    List<String> options = new ArrayList<>();
    for (String part : OPTION_SEPARATORS.split(named)) {
      String option = trimPunctuation(part);
      if (!option.isEmpty() && !options.contains(option)) {
        options.add(option);
      }
    }
    return new Choosing(trimEdges(about), options.size() < 2 ? List.of() : List.copyOf(options));
  }

  /**
   * @param about what is to be chosen, without article ("colour for the logo"); empty when unsaid
   * @param options the options the request names; empty when it names fewer than two
   */
  record Choosing(String about, List<String> options) {}

  static boolean isResearchRequest(String text) {
    return leading(text.strip(), RESEARCH_VERBS).isPresent();
  }

  /**
   * The subjects of a request, in order: "Research Kafka and MongoDB" → [Kafka, MongoDB]; "What
   * about Redis?" → [Redis]; "Research it" → [].
   */
  static List<String> subjects(String request) {
    String text = request.strip();
    text = withoutLeading(text, FOLLOW_UP_MARKERS);
    text = withoutLeading(text, RESEARCH_VERBS);
    List<String> subjects = new ArrayList<>();
    for (String part : SEPARATORS.split(text)) {
      String subject = trimEdges(part);
      if (!subject.isEmpty()
          && !PRONOUNS.contains(subject.toLowerCase(Locale.ROOT))
          && !subjects.contains(subject)) {
        subjects.add(subject);
      }
    }
    return subjects;
  }

  /** "Kafka", "Kafka and MongoDB", "Kafka, MongoDB and Redis". */
  static String join(List<String> subjects) {
    if (subjects.size() < 2) {
      return String.join("", subjects);
    }
    return String.join(", ", subjects.subList(0, subjects.size() - 1))
        + " and "
        + subjects.getLast();
  }

  private static String withoutLeading(String text, List<String> phrases) {
    return leading(text, phrases)
        .map(phrase -> trimPunctuation(text.substring(phrase.length())))
        .orElse(text);
  }

  /** Drops filler words and punctuation at both edges until none is left. */
  private static String trimEdges(String part) {
    String text = trimPunctuation(part);
    String before;
    do {
      before = text;
      text = trimPunctuation(withoutLeading(text, FILLERS));
      text = trimPunctuation(withoutTrailing(text, FILLERS));
    } while (!text.equals(before));
    return text;
  }

  private static String withoutTrailing(String text, List<String> phrases) {
    for (String phrase : phrases) {
      int start = text.length() - phrase.length();
      if (start >= 0
          && text.regionMatches(true, start, phrase, 0, phrase.length())
          && (start == 0 || !Character.isLetterOrDigit(text.charAt(start - 1)))) {
        return text.substring(0, start);
      }
    }
    return text;
  }

  private static Optional<String> leading(String text, List<String> phrases) {
    return phrases.stream()
        .filter(
            phrase ->
                text.regionMatches(true, 0, phrase, 0, phrase.length())
                    && (text.length() == phrase.length()
                        || !Character.isLetterOrDigit(text.charAt(phrase.length()))))
        .findFirst();
  }

  private static String trimPunctuation(String text) {
    int start = 0;
    int end = text.length();
    while (start < end && isEdge(text.charAt(start))) {
      start++;
    }
    while (end > start && isEdge(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(start, end);
  }

  private static boolean isEdge(char c) {
    return Character.isWhitespace(c) || EDGE_PUNCTUATION.indexOf(c) >= 0;
  }
}
