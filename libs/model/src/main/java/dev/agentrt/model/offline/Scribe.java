package dev.agentrt.model.offline;

import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelToolCall;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * One turn of the scribe: write the current request as a note with {@code write_note}, then say
 * what became of it. Rules are listed on {@link OfflineModel}.
 */
final class Scribe {

  static final String WRITE_NOTE = "write_note";
  private static final int TITLE_WORDS = 6;

  private final List<ModelMessage> messages;

  Scribe(List<ModelMessage> messages) {
    this.messages = messages;
  }

  ModelMessage turn() {
    int request = lastIndexOf("user");
    ModelMessage lastCall = null;
    for (ModelMessage message : messages.subList(request + 1, messages.size())) {
      if (message.role().equals("assistant")
          && message.toolCalls().stream().anyMatch(c -> c.name().equals(WRITE_NOTE))) {
        lastCall = message;
      }
    }
    if (lastCall == null) {
      return write(request < 0 ? "" : text(messages.get(request)));
    }
    String callId = lastCall.toolCalls().getFirst().id();
    String result =
        messages.stream()
            .filter(m -> m.role().equals("tool") && callId.equals(m.toolCallId()))
            .map(Scribe::text)
            .findFirst()
            .orElse("");
    return ModelMessage.assistant(outcome(Json.parse(result)), List.of());
  }

  /** "Saved the note <path>.", or why it was not saved. */
  private static String outcome(JsonNode result) {
    if (result.has("path")) {
      return "Saved the note " + result.path("path").asString() + ".";
    }
    String why = result.path("message").asString("no reason given");
    return result.path("error_type").asString("").equals("rejected")
        ? "I did not save the note: " + why + "."
        : "I could not save the note: " + why + ".";
  }

  private ModelMessage write(String request) {
    String note = Phrases.noteToSave(request).orElse(request.strip());
    if (note.isEmpty()) {
      return ModelMessage.assistant("What should the note say?", List.of());
    }
    String turn = "call_" + messages.stream().filter(m -> m.role().equals("assistant")).count();
    return ModelMessage.assistant(
        null,
        List.of(
            new ModelToolCall(
                turn + "_0", WRITE_NOTE, Json.object("title", title(note), "content", note))));
  }

  /** The note's first words, up to six, without trailing punctuation. */
  static String title(String note) {
    String[] words = note.strip().split("\\s+");
    String title = String.join(" ", List.of(words).subList(0, Math.min(words.length, TITLE_WORDS)));
    return title.replaceAll("[\\p{Punct}]+$", "");
  }

  private int lastIndexOf(String role) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i).role().equals(role)) {
        return i;
      }
    }
    return -1;
  }

  private static String text(ModelMessage message) {
    return message.content() == null ? "" : message.content();
  }
}
