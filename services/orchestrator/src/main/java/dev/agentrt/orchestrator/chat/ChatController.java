package dev.agentrt.orchestrator.chat;

import dev.agentrt.orchestrator.models.ModelNames;
import dev.agentrt.orchestrator.models.Pricing;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Usage;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** The chat API: create chats, post the person's messages, read what happened. */
@RestController
@RequestMapping("/api/chats")
class ChatController {

  static final int MAX_CONTENT_LENGTH = 32_000;

  static final int MAX_PAGE_SIZE = 200;

  private final Chats chats;
  private final ChatAccess access;
  private final ChatTasks tasks;
  private final ModelNames models;
  private final Pricing pricing;

  ChatController(
      Chats chats, ChatAccess access, ChatTasks tasks, ModelNames models, Pricing pricing) {
    this.chats = chats;
    this.access = access;
    this.tasks = tasks;
    this.models = models;
    this.pricing = pricing;
  }

  /**
   * @param model a configured model for the chat's decisions and the tasks it starts; absent: each
   *     agent's model, else the default
   * @param limits limits for this chat's runs, tighter than the global and the agents' ones
   */
  record NewChat(
      @Nullable @Size(max = 200) String title,
      @Nullable String model,
      @Nullable @Valid Limits limits) {}

  /** Per-run limits; each left out keeps the global and the agent's limit. */
  record Limits(
      @Nullable @Positive Integer maxSteps,
      @Nullable @Positive Long maxTokens,
      @Nullable @Positive Long deadlineSeconds) {

    ChatLimits stored() {
      return new ChatLimits(maxSteps, maxTokens, deadlineSeconds);
    }
  }

  /**
   * @param model a configured model for this message's decision and the task it starts, over the
   *     chat's
   */
  record NewMessage(@NotBlank String content, @Nullable String model) {}

  record Created(String id) {}

  /**
   * @param usage every stored model turn of the chat: decisions, sub-agents' turns, final answers
   */
  record ChatView(
      String id,
      String title,
      @Nullable String model,
      @Nullable ChatLimits limits,
      Instant createdAt,
      UsageView usage) {
    static ChatView of(Chat chat, Usage usage, Pricing pricing) {
      return new ChatView(
          chat.id(),
          chat.title(),
          chat.model(),
          chat.limits(),
          chat.createdAt(),
          UsageView.of(usage, pricing));
    }
  }

  /**
   * @param model on the person's message, the model they chose for it; on an answer the model
   *     wrote, the model asked (absent: the default)
   * @param usage on an answer the model wrote, the tokens of the turns behind it
   * @param toolCallId on an approval request, the call it asks about (decide it with {@code POST
   *     /api/chats/{id}/feedback})
   */
  record MessageView(
      String id,
      String role,
      String content,
      @Nullable String taskId,
      @Nullable String toolCallId,
      @Nullable String model,
      UsageView.@Nullable Turn usage,
      Instant createdAt) {
    static MessageView of(ChatMessage m, Pricing pricing) {
      return new MessageView(
          m.id(),
          m.role(),
          m.content(),
          m.taskId(),
          m.toolCallId(),
          m.model(),
          UsageView.Turn.of(m.model(), m.usage(), pricing),
          m.createdAt());
    }
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  Created createChat(@Valid @RequestBody(required = false) @Nullable NewChat body) {
    String title = body == null || body.title() == null ? "New chat" : body.title();
    String model = known(body == null ? null : body.model());
    ChatLimits limits = body == null || body.limits() == null ? null : body.limits().stored();
    return new Created(chats.create(title, model, limits, access.user()).id());
  }

  /** The user's chats (an admin's: all), newest first, a page at a time. */
  @GetMapping
  List<ChatView> listChats(
      @RequestParam(defaultValue = "0") int page, @RequestParam(defaultValue = "50") int size) {
    if (page < 0 || size < 1 || size > MAX_PAGE_SIZE) {
      throw new ResponseStatusException(
          HttpStatus.BAD_REQUEST,
          "page must be >= 0 and size between 1 and "
              + MAX_PAGE_SIZE
              + ", got "
              + page
              + ", "
              + size);
    }
    List<Chat> listed = access.list(page, size);
    Map<String, Usage> usage = tasks.usageOf(listed);
    return listed.stream().map(chat -> ChatView.of(chat, usage.get(chat.id()), pricing)).toList();
  }

  @GetMapping("/{chatId}")
  ChatView chat(@PathVariable String chatId) {
    Chat chat = found(access.readable(chatId), chatId);
    return ChatView.of(chat, tasks.usageOf(List.of(chat)).get(chat.id()), pricing);
  }

  @PostMapping("/{chatId}/messages")
  @ResponseStatus(HttpStatus.ACCEPTED)
  Created postMessage(@PathVariable String chatId, @Valid @RequestBody NewMessage body) {
    if (body.content().length() > MAX_CONTENT_LENGTH) {
      throw new ResponseStatusException(
          HttpStatus.CONTENT_TOO_LARGE,
          "content is longer than " + MAX_CONTENT_LENGTH + " characters");
    }
    String model = known(body.model());
    return new Created(
        found(
                chats.postUserMessage(chatId, access.writableCondition(), body.content(), model),
                chatId)
            .id());
  }

  @GetMapping("/{chatId}/messages")
  List<MessageView> messages(@PathVariable String chatId) {
    found(access.readable(chatId), chatId);
    return chats.messages(chatId).stream().map(m -> MessageView.of(m, pricing)).toList();
  }

  @GetMapping("/{chatId}/tasks")
  List<TaskView> tasks(@PathVariable String chatId) {
    found(access.readable(chatId), chatId);
    return tasks.viewsOf(chatId, pricing);
  }

  /** A model a request names must be configured: refused with the names there are. */
  private @Nullable String known(@Nullable String model) {
    if (model != null && !models.knows(model)) {
      throw new ResponseStatusException(HttpStatus.BAD_REQUEST, models.unknown(model));
    }
    return model;
  }

  private static <T> T found(Optional<T> chat, String chatId) {
    return chat.orElseThrow(
        () -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no chat with id " + chatId));
  }
}
