package dev.agentrt.orchestrator.openai;

import dev.agentrt.orchestrator.chat.ChatAccess;
import dev.agentrt.orchestrator.chat.Chats;
import dev.agentrt.orchestrator.events.EventsProperties;
import dev.agentrt.orchestrator.events.LedgerFollower;
import dev.agentrt.orchestrator.events.StreamSlots;
import dev.agentrt.orchestrator.events.StreamedEvent;
import dev.agentrt.orchestrator.http.OpenAiCompatible;
import dev.agentrt.orchestrator.models.ModelNames;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.TurnUsage;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
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
 * request holds no platform thread. Streamed or not, a waiting request holds one of {@link
 * StreamSlots}' places, as a chat's event stream does.
 */
@RestController
@RequestMapping("/v1")
@OpenAiCompatible
class OpenAiController {

  static final String MODEL = "agentrt";
  static final String CHAT_ID = "X-Chat-Id";

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int CHUNK_LENGTH = 64;

  private final Chats chats;
  private final ChatAccess access;
  private final Conversations conversations;
  private final ModelNames models;
  private final RunLedger ledger;
  private final EventsProperties events;
  private final StreamSlots slots;
  private final long created = Instant.now().getEpochSecond();

  OpenAiController(
      Chats chats,
      ChatAccess access,
      Conversations conversations,
      ModelNames models,
      RunLedger ledger,
      EventsProperties events,
      StreamSlots slots) {
    this.chats = chats;
    this.access = access;
    this.conversations = conversations;
    this.models = models;
    this.ledger = ledger;
    this.events = events;
    this.slots = slots;
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
    try (StreamSlots.Slot waiting = slots.take(chatId)) {
      ChatMessage question = chats.postUserMessage(chatId, request.lastUserMessage(), model);
      if (request.stream()) {
        stream(question, response);
        return null;
      }
      Optional<ChatMessage> reply = conversations.awaitReply(question);
      if (reply.isEmpty()) {
        return OpenAiErrors.error(noReply(chatId), chatId, HttpHeaders.EMPTY);
      }
      return ResponseEntity.ok()
          .header(CHAT_ID, chatId)
          .contentType(MediaType.APPLICATION_JSON)
          .body(completion(reply.get()));
    }
  }

  /**
   * Streams the run while it happens: the role first, then each step of the run as a line of {@code
   * delta.reasoning_content} with the run event itself in {@code agentrt_event} (plain clients
   * ignore both), comment lines while nothing happens, then the reply as {@code delta.content},
   * {@code finish_reason} and {@code [DONE]}. Written straight to the response on this (virtual)
   * request thread: no async dispatch.
   */
  private void stream(ChatMessage question, HttpServletResponse response)
      throws IOException, InterruptedException {
    response.setStatus(HttpStatus.OK.value());
    response.setHeader(CHAT_ID, question.chatId());
    response.setHeader("Cache-Control", "no-cache");
    response.setContentType(MediaType.TEXT_EVENT_STREAM_VALUE);
    response.setCharacterEncoding(StandardCharsets.UTF_8);
    OutputStream out = response.getOutputStream();
    String id = "chatcmpl-" + question.id();
    ObjectNode role = chunk(id, question, null);
    delta(role).put("role", "assistant");
    send(out, role);
    LedgerFollower progress =
        new LedgerFollower(
            ledger,
            events,
            Clock.systemUTC(),
            question.chatId(),
            ledger.positionOf(question.chatId(), RunLedger.messageKey(question.id())));
    LedgerFollower.Sink lines =
        new LedgerFollower.Sink() {
          @Override
          public void send(RunEvent event) throws IOException {
            Optional<String> line = ProgressLine.of(event);
            if (line.isPresent()) {
              ObjectNode chunk = chunk(id, question, null);
              delta(chunk).put("reasoning_content", line.get());
              chunk.set("agentrt_event", JSON.valueToTree(StreamedEvent.of(event)));
              OpenAiController.send(out, chunk);
            }
          }

          @Override
          public void heartbeat() throws IOException {
            write(out, ": keep-alive\n\n");
          }
        };
    Optional<ChatMessage> reply = conversations.awaitReply(question, () -> progress.poll(lines));
    if (reply.isEmpty()) {
      ObjectNode error = JSON.createObjectNode();
      OpenAiException timeout = noReply(question.chatId());
      error.putObject("error").put("message", timeout.getMessage()).put("type", timeout.type());
      send(out, error);
    } else {
      for (String piece : pieces(reply.get().content())) {
        ObjectNode chunk = chunk(id, question, null);
        delta(chunk).put("content", piece);
        send(out, chunk);
      }
      send(out, chunk(id, question, "stop"));
    }
    write(out, "data: [DONE]\n\n");
  }

  private static OpenAiException noReply(String chatId) {
    return new OpenAiException(
        HttpStatus.GATEWAY_TIMEOUT,
        "no reply in chat " + chatId + " in time; it may still arrive in the chat",
        "timeout",
        null,
        null);
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

  /**
   * The user's chat the header names, else the user's chat whose conversation is the history, else
   * a new one.
   */
  private String chatFor(@Nullable String header, CompletionRequest request) {
    if (header != null && !header.isBlank()) {
      return access
          .writable(header.strip())
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
    String user = access.user();
    return conversations
        .chatWithHistory(user, request.history())
        .filter(id -> access.writable(id).isPresent())
        .orElseGet(() -> chats.create(title(request), null, null, user).id());
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

  /** The content in pieces of {@value #CHUNK_LENGTH} characters, never splitting a pair. */
  private static List<String> pieces(String content) {
    List<String> pieces = new ArrayList<>();
    int from = 0;
    while (from < content.length()) {
      int to = Math.min(content.length(), from + CHUNK_LENGTH);
      if (to < content.length() && Character.isHighSurrogate(content.charAt(to - 1))) {
        to--;
      }
      pieces.add(content.substring(from, to));
      from = to;
    }
    return pieces;
  }

  private ObjectNode chunk(String id, ChatMessage question, @Nullable String finishReason) {
    ObjectNode chunk =
        JSON.createObjectNode()
            .put("id", id)
            .put("object", "chat.completion.chunk")
            .put("created", question.createdAt().getEpochSecond())
            .put("model", MODEL)
            .put("chat_id", question.chatId());
    ObjectNode choice = chunk.putArray("choices").addObject().put("index", 0);
    choice.putObject("delta");
    if (finishReason == null) {
      choice.putNull("finish_reason");
    } else {
      choice.put("finish_reason", finishReason);
    }
    return chunk;
  }

  private static ObjectNode delta(ObjectNode chunk) {
    return (ObjectNode) chunk.path("choices").path(0).path("delta");
  }

  private static ObjectNode head(ChatMessage reply, String object) {
    return JSON.createObjectNode()
        .put("id", "chatcmpl-" + reply.id())
        .put("object", object)
        .put("created", reply.createdAt().getEpochSecond())
        .put("model", MODEL)
        .put("chat_id", reply.chatId());
  }

  private static void send(OutputStream out, ObjectNode chunk) throws IOException {
    write(out, "data: " + JSON.writeValueAsString(chunk) + "\n\n");
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
