package dev.agentrt.model.offline;

import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelToolCall;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * One turn of an agent offered {@code message_agent}: it has researchers work for it and writes one
 * answer from what they said. Rules are listed on {@link OfflineModel}.
 */
final class Analyst {

  static final String MESSAGE_AGENT = "message_agent";
  private static final String RESEARCHER = "researcher";
  private static final String SOURCES = "Sources:";

  private final List<ModelMessage> messages;
  private final Map<String, String> resultsById = new HashMap<>();
  private final int turnIndex;

  Analyst(List<ModelMessage> messages) {
    this.messages = messages;
    for (ModelMessage message : messages) {
      if (message.role().equals("tool") && message.toolCallId() != null) {
        resultsById.put(message.toolCallId(), message.content() == null ? "" : message.content());
      }
    }
    this.turnIndex = (int) messages.stream().filter(m -> m.role().equals("assistant")).count();
  }

  ModelMessage turn() {
    int request = currentRequest();
    String text = request < 0 ? "" : text(messages.get(request));
    List<ModelToolCall> asked =
        messages.subList(request + 1, messages.size()).stream()
            .flatMap(m -> m.toolCalls().stream())
            .filter(call -> call.name().equals(MESSAGE_AGENT))
            .toList();
    Optional<String> discussed = Phrases.discussion(text);
    if (discussed.isPresent()) {
      return discuss(discussed.get(), asked);
    }
    List<String> subjects = Phrases.subjects(text);
    if (subjects.isEmpty()) {
      return answer(
          "What should I compare? Name the subjects, e.g. \"Compare Kafka and MongoDB\".");
    }
    if (asked.isEmpty()) {
      List<ModelToolCall> calls = new ArrayList<>();
      for (String subject : subjects) {
        calls.add(message(calls.size(), "Research " + subject, null));
      }
      return ModelMessage.assistant(null, calls);
    }
    return synthesize(subjects, asked);
  }

  /** One answer: a section per subject from its researcher's reply, and every source named. */
  private ModelMessage synthesize(List<String> subjects, List<ModelToolCall> asked) {
    List<String> parts = new ArrayList<>();
    parts.add("Here is what the researchers found about " + Phrases.join(subjects) + ".");
    Set<String> sources = new LinkedHashSet<>();
    for (int i = 0; i < asked.size(); i++) {
      String subject = i < subjects.size() ? subjects.get(i) : "Request " + (i + 1);
      parts.add("## " + subject + "\n\n" + reply(asked.get(i), sources));
    }
    if (!sources.isEmpty()) {
      parts.add(SOURCES + " " + String.join(", ", sources));
    }
    return answer(String.join("\n\n", parts));
  }

  /**
   * "Discuss X with the researcher": ask it to research X, then ask the same researcher (by the
   * conversation id its reply came with) what else to know, then answer from both replies.
   */
  private ModelMessage discuss(String subject, List<ModelToolCall> asked) {
    if (asked.isEmpty()) {
      return ModelMessage.assistant(null, List.of(message(0, "Research " + subject, null)));
    }
    if (asked.size() == 1) {
      JsonNode first = Json.parse(resultsById.getOrDefault(asked.getFirst().id(), ""));
      String conversation = first.path("conversation_id").asString("");
      if (!conversation.isBlank()) {
        return ModelMessage.assistant(
            null,
            List.of(message(0, "What else should I know about " + subject + "?", conversation)));
      }
    }
    Set<String> sources = new LinkedHashSet<>();
    List<String> parts = new ArrayList<>();
    parts.add("I discussed " + subject + " with the researcher.");
    parts.add("## What it found\n\n" + reply(asked.getFirst(), sources));
    if (asked.size() > 1) {
      parts.add("## What else to know\n\n" + reply(asked.get(1), sources));
    }
    if (!sources.isEmpty()) {
      parts.add(SOURCES + " " + String.join(", ", sources));
    }
    return answer(String.join("\n\n", parts));
  }

  /** A researcher's reply without its sources line, whose sources go to {@code sources}. */
  private String reply(ModelToolCall call, Set<String> sources) {
    JsonNode reply = Json.parse(resultsById.getOrDefault(call.id(), ""));
    if (reply.has("error_type")) {
      return "The researcher could not answer ("
          + reply.path("error_type").asString("")
          + "): "
          + reply.path("message").asString("");
    }
    List<String> kept = new ArrayList<>();
    for (String line : reply.path("result").asString("").strip().split("\n")) {
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
    return String.join("\n", kept).strip();
  }

  private ModelToolCall message(int index, String text, String conversationId) {
    String arguments =
        conversationId == null
            ? Json.object("agent", RESEARCHER, "message", text)
            : Json.object("agent", RESEARCHER, "message", text, "conversation_id", conversationId);
    return new ModelToolCall("call_" + turnIndex + "_" + index, MESSAGE_AGENT, arguments);
  }

  /** The latest user message after the last final answer; -1 when there is none. */
  private int currentRequest() {
    int lastFinal = -1;
    for (int i = 0; i < messages.size(); i++) {
      ModelMessage message = messages.get(i);
      if (message.role().equals("assistant") && message.toolCalls().isEmpty()) {
        lastFinal = i;
      }
    }
    for (int i = messages.size() - 1; i > lastFinal; i--) {
      if (messages.get(i).role().equals("user")) {
        return i;
      }
    }
    return -1;
  }

  private static ModelMessage answer(String text) {
    return ModelMessage.assistant(text, List.of());
  }

  private static String text(ModelMessage message) {
    return message.content() == null ? "" : message.content();
  }
}
