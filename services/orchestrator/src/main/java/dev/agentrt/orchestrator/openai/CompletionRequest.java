package dev.agentrt.orchestrator.openai;

import dev.agentrt.orchestrator.openai.Fingerprint.Turn;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The part of an OpenAI chat-completions request the orchestrator uses: the model, whether to
 * stream, the person's last message, and the {@code user}/{@code assistant} turns before it
 * (system, developer and tool messages are not part of a chat's conversation and are left out).
 */
record CompletionRequest(
    @Nullable String model, boolean stream, List<Turn> history, String lastUserMessage) {

  static final int MAX_CONTENT_LENGTH = 32_000;

  private static final Set<String> ROLES =
      Set.of("system", "developer", "user", "assistant", "tool");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  static CompletionRequest parse(@Nullable String body) {
    if (body == null || body.isBlank()) {
      throw OpenAiException.invalid("the request body is missing", null);
    }
    JsonNode json;
    try {
      json = JSON.readTree(body);
    } catch (JacksonException e) {
      throw OpenAiException.invalid("the request body is not valid JSON", null);
    }
    if (json == null || !json.isObject()) {
      throw OpenAiException.invalid("the request body must be a JSON object", null);
    }
    JsonNode model = json.path("model");
    if (!model.isMissingNode() && !model.isNull() && !model.isString()) {
      throw OpenAiException.invalid("model must be a string", "model");
    }
    JsonNode stream = json.path("stream");
    if (!stream.isMissingNode() && !stream.isNull() && !stream.isBoolean()) {
      throw OpenAiException.invalid("stream must be true or false", "stream");
    }
    JsonNode messages = json.path("messages");
    if (!messages.isArray() || messages.isEmpty()) {
      throw OpenAiException.invalid("messages must be a non-empty array", "messages");
    }
    List<Turn> turns = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      JsonNode message = messages.get(i);
      String param = "messages[" + i + "]";
      if (!message.isObject()) {
        throw OpenAiException.invalid(param + " must be an object", param);
      }
      JsonNode role = message.path("role");
      if (!role.isString() || !ROLES.contains(role.asString())) {
        throw OpenAiException.invalid(
            param + ".role must be one of " + ROLES.stream().sorted().toList(), param + ".role");
      }
      String content = text(message.path("content"), param + ".content");
      if (role.asString().equals("user") || role.asString().equals("assistant")) {
        turns.add(new Turn(role.asString(), content));
      }
    }
    int last = messages.size() - 1;
    if (!messages.get(last).path("role").asString().equals("user")) {
      throw OpenAiException.invalid(
          "the last message must be the user's (role user)", "messages[" + last + "].role");
    }
    Turn question = turns.removeLast();
    if (question.content().isBlank()) {
      throw OpenAiException.invalid(
          "the last user message must have content", "messages[" + last + "].content");
    }
    if (question.content().length() > MAX_CONTENT_LENGTH) {
      throw new OpenAiException(
          HttpStatus.CONTENT_TOO_LARGE,
          "the last user message is longer than " + MAX_CONTENT_LENGTH + " characters",
          OpenAiException.INVALID_REQUEST,
          "messages[" + last + "].content",
          "message_too_long");
    }
    return new CompletionRequest(
        model.isString() ? model.asString() : null,
        stream.asBoolean(false),
        List.copyOf(turns),
        question.content());
  }

  /** A message's text: a string, or the {@code text} parts of an array of content parts. */
  private static String text(JsonNode content, String param) {
    if (content.isMissingNode() || content.isNull()) {
      return "";
    }
    if (content.isString()) {
      return content.asString();
    }
    if (content.isArray()) {
      StringBuilder text = new StringBuilder();
      for (JsonNode part : content) {
        if (!part.path("type").asString("").equals("text") || !part.path("text").isString()) {
          throw OpenAiException.invalid(param + " may only hold text parts", param);
        }
        text.append(part.path("text").asString());
      }
      return text.toString();
    }
    throw OpenAiException.invalid(param + " must be a string or an array of text parts", param);
  }
}
