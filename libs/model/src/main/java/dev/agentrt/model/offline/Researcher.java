package dev.agentrt.model.offline;

import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.model.ToolSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * One turn of a sub-agent in its tool loop: search for the subjects of the current request, read
 * the top hit of each search, answer from what was read. Rules are listed on {@link OfflineModel}.
 */
final class Researcher {

  private static final String ASK_USER = "ask_user";
  private static final String SEARCH_DOCS = "search_docs";
  private static final String READ_DOC = "read_doc";
  private static final String QUESTION = "What should I research?";

  private static final Pattern SENTENCE_END = Pattern.compile("[.!?](?=\\s|$)");
  private static final int MAX_EXCERPT = 400;

  private final List<ModelMessage> messages;
  private final List<String> offeredTools;
  private final Map<String, ModelToolCall> callsById = new HashMap<>();
  private final Map<String, String> resultsById = new HashMap<>();
  private final int turnIndex;

  Researcher(List<ModelMessage> messages, List<ToolSpec> tools) {
    this.messages = messages;
    this.offeredTools = tools.stream().map(ToolSpec::name).toList();
    for (ModelMessage message : messages) {
      message.toolCalls().forEach(call -> callsById.put(call.id(), call));
      if (message.role().equals("tool") && message.toolCallId() != null) {
        resultsById.put(message.toolCallId(), text(message));
      }
    }
    this.turnIndex = (int) messages.stream().filter(m -> m.role().equals("assistant")).count();
  }

  ModelMessage turn() {
    int request = currentRequest();
    if (request < 0) {
      return start("");
    }
    String requestText = text(messages.get(request));
    List<ModelMessage> since = messages.subList(request + 1, messages.size());
    ModelMessage lastTurn =
        since.stream()
            .filter(m -> m.role().equals("assistant") && !m.toolCalls().isEmpty())
            .reduce((first, second) -> second)
            .orElse(null);
    if (lastTurn == null) {
      return start(requestText);
    }
    return switch (lastTurn.toolCalls().getFirst().name()) {
      case SEARCH_DOCS -> readTopHits(lastTurn.toolCalls());
      case READ_DOC -> answerFromReads(lastTurn.toolCalls(), searchedSubjects(since));
      default -> start(requestText);
    };
  }

  /**
   * The index of the current request: the latest user message or ask_user result after the last
   * final answer (an assistant message without tool calls); -1 when there is none.
   */
  private int currentRequest() {
    int lastFinal = -1;
    for (int i = 0; i < messages.size(); i++) {
      ModelMessage message = messages.get(i);
      if (message.role().equals("assistant") && message.toolCalls().isEmpty()) {
        lastFinal = i;
      }
    }
    for (int i = messages.size() - 1; i > lastFinal; i--) {
      ModelMessage message = messages.get(i);
      if (message.role().equals("user") || isAskUserResult(message)) {
        return i;
      }
    }
    return -1;
  }

  private boolean isAskUserResult(ModelMessage message) {
    ModelToolCall call = message.toolCallId() == null ? null : callsById.get(message.toolCallId());
    return message.role().equals("tool") && call != null && call.name().equals(ASK_USER);
  }

  private ModelMessage start(String request) {
    List<String> subjects = Phrases.subjects(request);
    if (subjects.isEmpty()) {
      return call(ASK_USER, List.of(Json.object("question", QUESTION)), QUESTION);
    }
    return call(
        SEARCH_DOCS,
        subjects.stream().map(subject -> Json.object("query", subject)).toList(),
        "I cannot search the documents: I was not given the " + SEARCH_DOCS + " tool.");
  }

  private ModelMessage readTopHits(List<ModelToolCall> searches) {
    List<String> subjects = new ArrayList<>();
    List<String> paths = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (ModelToolCall search : searches) {
      String query = Json.parse(search.arguments()).path("query").asString("");
      subjects.add(query);
      JsonNode result = Json.parse(resultsById.getOrDefault(search.id(), ""));
      if (result.has("error_type")) {
        problems.add(
            "Could not search for \"" + query + "\": " + result.path("message").asString(""));
      }
      String top = result.path("results").path(0).path("path").asString("");
      if (!top.isBlank() && !paths.contains(top)) {
        paths.add(top);
      }
    }
    if (paths.isEmpty()) {
      problems.addFirst(
          "I could not find anything about " + Phrases.join(subjects) + " in the documents.");
      return answer(String.join("\n\n", problems));
    }
    return call(
        READ_DOC,
        paths.stream().map(path -> Json.object("path", path)).toList(),
        "I found "
            + String.join(", ", paths)
            + " but cannot read them: I was not given the "
            + READ_DOC
            + " tool.");
  }

  private ModelMessage answerFromReads(List<ModelToolCall> reads, List<String> subjects) {
    List<String> sections = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<String> sources = new ArrayList<>();
    for (ModelToolCall read : reads) {
      String path = Json.parse(read.arguments()).path("path").asString("");
      JsonNode doc = Json.parse(resultsById.getOrDefault(read.id(), ""));
      if (doc.has("error_type") || !doc.has("content")) {
        problems.add(
            "Could not read " + path + ": " + doc.path("message").asString("no content came back"));
      } else {
        sections.add(
            "**"
                + doc.path("title").asString(path)
                + "** ("
                + path
                + "): "
                + excerpt(doc.path("content").asString("")));
        sources.add(path);
      }
    }
    String about = subjects.isEmpty() ? "" : " about " + Phrases.join(subjects);
    List<String> parts = new ArrayList<>();
    parts.add(
        sources.isEmpty()
            ? "I could not read the documents" + about + "."
            : "Here is what I found" + about + ".");
    parts.addAll(sections);
    parts.addAll(problems);
    if (!sources.isEmpty()) {
      parts.add("Sources: " + String.join(", ", sources));
    }
    return answer(String.join("\n\n", parts));
  }

  /** The queries of the searches made for the current request. */
  private static List<String> searchedSubjects(List<ModelMessage> since) {
    return since.stream()
        .flatMap(m -> m.toolCalls().stream())
        .filter(call -> call.name().equals(SEARCH_DOCS))
        .map(call -> Json.parse(call.arguments()).path("query").asString(""))
        .filter(query -> !query.isBlank())
        .distinct()
        .toList();
  }

  /** The first one or two sentences of a document, headings left out. */
  private static String excerpt(String content) {
    String text =
        content
            .lines()
            .map(String::strip)
            .filter(line -> !line.isEmpty() && !line.startsWith("#"))
            .collect(Collectors.joining(" "));
    Matcher sentenceEnd = SENTENCE_END.matcher(text);
    int end = text.length();
    for (int sentences = 0; sentences < 2 && sentenceEnd.find(); sentences++) {
      end = sentenceEnd.end();
    }
    return end > MAX_EXCERPT
        ? text.substring(0, MAX_EXCERPT).strip() + "…"
        : text.substring(0, end);
  }

  /** Calls the tool once per argument object, all in this turn; answers instead if not offered. */
  private ModelMessage call(String tool, List<String> arguments, String answerWithoutTool) {
    if (!offeredTools.contains(tool)) {
      return answer(answerWithoutTool);
    }
    List<ModelToolCall> calls = new ArrayList<>();
    for (int i = 0; i < arguments.size(); i++) {
      calls.add(new ModelToolCall("call_" + turnIndex + "_" + i, tool, arguments.get(i)));
    }
    return ModelMessage.assistant(null, calls);
  }

  private static ModelMessage answer(String text) {
    return ModelMessage.assistant(text, List.of());
  }

  private static String text(ModelMessage message) {
    return message.content() == null ? "" : message.content();
  }
}
