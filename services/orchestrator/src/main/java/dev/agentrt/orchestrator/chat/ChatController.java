package dev.agentrt.orchestrator.chat;

import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** The chat API: create chats, post the person's messages, read what happened. */
@RestController
@RequestMapping("/api/chats")
class ChatController {

  static final int MAX_CONTENT_LENGTH = 32_000;

  private final Chats chats;
  private final ChatTasks tasks;

  ChatController(Chats chats, ChatTasks tasks) {
    this.chats = chats;
    this.tasks = tasks;
  }

  record NewChat(@Nullable @Size(max = 200) String title) {}

  record NewMessage(@NotBlank @Size(max = MAX_CONTENT_LENGTH) String content) {}

  record Created(String id) {}

  record ChatView(String id, String title, Instant createdAt) {
    static ChatView of(Chat chat) {
      return new ChatView(chat.id(), chat.title(), chat.createdAt());
    }
  }

  record MessageView(
      String id, String role, String content, @Nullable String taskId, Instant createdAt) {
    static MessageView of(ChatMessage m) {
      return new MessageView(m.id(), m.role(), m.content(), m.taskId(), m.createdAt());
    }
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  Created createChat(@Valid @RequestBody(required = false) @Nullable NewChat body) {
    String title = body == null || body.title() == null ? "New chat" : body.title();
    return new Created(chats.create(title).id());
  }

  @GetMapping
  List<ChatView> listChats() {
    return chats.all().stream().map(ChatView::of).toList();
  }

  @GetMapping("/{chatId}")
  ChatView chat(@PathVariable String chatId) {
    return ChatView.of(existing(chatId));
  }

  @PostMapping("/{chatId}/messages")
  @ResponseStatus(HttpStatus.ACCEPTED)
  Created postMessage(@PathVariable String chatId, @Valid @RequestBody NewMessage body) {
    existing(chatId);
    return new Created(chats.postUserMessage(chatId, body.content()).id());
  }

  @GetMapping("/{chatId}/messages")
  List<MessageView> messages(@PathVariable String chatId) {
    existing(chatId);
    return chats.messages(chatId).stream().map(MessageView::of).toList();
  }

  @GetMapping("/{chatId}/tasks")
  List<TaskView> tasks(@PathVariable String chatId) {
    existing(chatId);
    return tasks.ofChat(chatId).stream().map(TaskView::of).toList();
  }

  private Chat existing(String chatId) {
    return chats
        .find(chatId)
        .orElseThrow(
            () -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no chat with id " + chatId));
  }
}
