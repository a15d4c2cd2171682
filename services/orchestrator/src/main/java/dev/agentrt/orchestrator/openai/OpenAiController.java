package dev.agentrt.orchestrator.openai;

import dev.agentrt.orchestrator.chat.Chats;
import dev.agentrt.orchestrator.models.ModelNames;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.TurnUsage;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The orchestrator as one OpenAI-compatible model, {@value #MODEL}: any OpenAI client can chat with
 * it. A request's last user message is posted to a chat like any chat message; the response is the
 * chat's reply to it (a direct answer, a task's final answer, or a sub-agent's question).
 *
 * <p>Threading: the request waits for the reply by polling MongoDB, blocking its request thread;
 * the services run Tomcat on virtual threads ({@code spring.threads.virtual.enabled}), so a waiting
 * request holds no platform thread.
 */
@RestController
@RequestMapping("/v1")
class OpenAiController {

  static final String MODEL = "agentrt";
  static final String CHAT_ID = "X-Chat-Id";

  private static final Logger log = LoggerFactory.getLogger(OpenAiController.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int CHUNK_LENGTH = 64;

  private final Chats chats;
  private final Conversations conversations;
  private final ModelNames models;
  private final long created = Instant.now().getEpochSecond();

  OpenAiController(Chats chats, Conversations conversations, ModelNames models) {
    this.chats = chats;
    this.conversations = conversations;
    this.models = models;
  }

  @GetMapping("/models")
  ObjectNode models() {
    ObjectNode list = JSON.createObjectNode().put("object", "list");
    list.putArray("data")
        .addObject()
        .put("id", MODEL)
        .put("object", "model")
        .put("created", created)
        .put("owned_by", "agentrt");
    return list;
  }

  @PostMapping("/chat/completions")
  @Nullable ResponseEntity<ObjectNode> complete(
      @RequestHeader(value = CHAT_ID, required = false) @Nullable String chatIdHeader,
      @RequestBody(required = false) @Nullable String body,
      HttpServletResponse response)
      throws InterruptedException, IOException {
    CompletionRequest request = CompletionRequest.parse(body);
    String model = modelFor(request.model());
    String chatId = chatFor(chatIdHeader, request);
    ChatMessage question = chats.postUserMessage(chatId, request.lastUserMessage(), model);
    Optional<ChatMessage> reply = conversations.awaitReply(question);
    if (reply.isEmpty()) {
      return error(
          new OpenAiException(
              HttpStatus.GATEWAY_TIMEOUT,
              "no reply in chat " + chatId + " in time; it may still arrive in the chat",
              "timeout",
              null,
              null),
          chatId);
    }
    if (request.stream()) {
      // Written straight to the response, on this (virtual) request thread: no async dispatch.
      response.setStatus(HttpStatus.OK.value());
      response.setHeader(CHAT_ID, chatId);
      response.setHeader("Cache-Control", "no-cache");
      response.setContentType(MediaType.TEXT_EVENT_STREAM_VALUE);
      response.setCharacterEncoding(StandardCharsets.UTF_8);
      OutputStream out = response.getOutputStream();
      for (String event : events(reply.get())) {
        write(out, "data: " + event + "\n\n");
      }
      write(out, "data: [DONE]\n\n");
      return null;
    }
    return ResponseEntity.ok()
        .header(CHAT_ID, chatId)
        .contentType(MediaType.APPLICATION_JSON)
        .body(completion(reply.get()));
  }

  /** Absent or {@value #MODEL}: the chat's model; a configured model's name: that model. */
  private @Nullable String modelFor(@Nullable String model) {
    if (model == null || model.equals(MODEL)) {
      return null;
    }
    if (!models.knows(model)) {
      throw new OpenAiException(
          HttpStatus.BAD_REQUEST,
          "the model '"
              + model
              + "' does not exist; use '"
              + MODEL
              + "' (or a configured model: "
              + models.names().stream().sorted().toList()
              + ")",
          OpenAiException.INVALID_REQUEST,
          "model",
          "model_not_found");
    }
    return model;
  }

  /** The chat the header names, else the one whose conversation is the history, else a new one. */
  private String chatFor(@Nullable String header, CompletionRequest request) {
    if (header != null && !header.isBlank()) {
      return chats
          .find(header.strip())
          .orElseThrow(
              () ->
                  new OpenAiException(
                      HttpStatus.NOT_FOUND,
                      "no chat with id " + header.strip(),
                      OpenAiException.INVALID_REQUEST,
                      CHAT_ID,
                      "chat_not_found"))
          .id();
    }
    return conversations
        .chatWithHistory(request.history())
        .filter(id -> chats.find(id).isPresent())
        .orElseGet(() -> chats.create(title(request), null, null).id());
  }

  private static String title(CompletionRequest request) {
    String first =
        request.history().stream()
            .filter(turn -> turn.role().equals(ChatMessage.USER))
            .map(Fingerprint.Turn::content)
            .findFirst()
            .orElse(request.lastUserMessage())
            .strip()
            .replaceAll("\\s+", " ");
    return first.length() <= 60 ? first : first.substring(0, 60) + "…";
  }

  private ObjectNode completion(ChatMessage reply) {
    ObjectNode completion = head(reply, "chat.completion");
    ObjectNode choice = completion.putArray("choices").addObject().put("index", 0);
    choice.putObject("message").put("role", "assistant").put("content", reply.content());
    choice.put("finish_reason", "stop");
    TurnUsage usage = reply.usage() == null ? TurnUsage.NONE : reply.usage();
    completion
        .putObject("usage")
        .put("prompt_tokens", usage.promptTokens())
        .put("completion_tokens", usage.completionTokens())
        .put("total_tokens", usage.promptTokens() + usage.completionTokens());
    return completion;
  }

  /**
   * The reply as chunks: the role, the content in pieces, the end. Until the model's tokens are
   * streamed, the whole reply is known when the first chunk is sent.
   */
  private List<String> events(ChatMessage reply) {
    List<String> events = new ArrayList<>();
    ObjectNode role = chunk(reply, null);
    ((ObjectNode) role.path("choices").path(0).path("delta")).put("role", "assistant");
    events.add(JSON.writeValueAsString(role));
    String content = reply.content();
    int from = 0;
    while (from < content.length()) {
      int to = Math.min(content.length(), from + CHUNK_LENGTH);
      if (to < content.length() && Character.isHighSurrogate(content.charAt(to - 1))) {
        to--; // never split a surrogate pair
      }
      ObjectNode piece = chunk(reply, null);
      ((ObjectNode) piece.path("choices").path(0).path("delta"))
          .put("content", content.substring(from, to));
      events.add(JSON.writeValueAsString(piece));
      from = to;
    }
    events.add(JSON.writeValueAsString(chunk(reply, "stop")));
    return events;
  }

  private ObjectNode chunk(ChatMessage reply, @Nullable String finishReason) {
    ObjectNode chunk = head(reply, "chat.completion.chunk");
    ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
    choice.putObject("delta");
    if (finishReason == null) {
      choice.putNull("finish_reason");
    } else {
      choice.put("finish_reason", finishReason);
    }
    return chunk;
  }

  private static ObjectNode head(ChatMessage reply, String object) {
    return JSON.createObjectNode()
        .put("id", "chatcmpl-" + reply.id())
        .put("object", object)
        .put("created", reply.createdAt().getEpochSecond())
        .put("model", MODEL)
        .put("chat_id", reply.chatId());
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  @ExceptionHandler(OpenAiException.class)
  ResponseEntity<ObjectNode> refused(OpenAiException e) {
    return error(e, null);
  }

  @ExceptionHandler(Exception.class)
  ResponseEntity<ObjectNode> failed(Exception e) {
    log.error("OpenAI-compatible request failed", e);
    return error(
        new OpenAiException(
            HttpStatus.INTERNAL_SERVER_ERROR,
            "the request could not be completed: " + e.getClass().getSimpleName(),
            "server_error",
            null,
            null),
        null);
  }

  private static ResponseEntity<ObjectNode> error(OpenAiException e, @Nullable String chatId) {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode error = body.putObject("error").put("message", e.getMessage()).put("type", e.type());
    if (e.param() != null) {
      error.put("param", e.param());
    }
    if (e.code() != null) {
      error.put("code", e.code());
    }
    ResponseEntity.BodyBuilder response =
        ResponseEntity.status(e.status()).contentType(MediaType.APPLICATION_JSON);
    if (chatId != null) {
      response.header(CHAT_ID, chatId);
    }
    return response.body(body);
  }
}
