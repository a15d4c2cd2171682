package dev.agentrt.orchestrator.events;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;
import org.springframework.web.ErrorResponseException;

/**
 * Places for long-lived streams on this orchestrator: at most {@code max-streams-per-chat} per chat
 * and {@code max-streams} in all. Each open stream holds a thread and polls MongoDB, so these bound
 * both. A stream lives on the copy that serves it, so the count is this copy's, in memory; a chat
 * is forgotten when its last stream ends.
 */
@Component
public class StreamSlots {

  private final int perChat;
  private final int total;
  private final Map<String, Integer> byChat = new HashMap<>();
  private int open;

  public StreamSlots(EventsProperties properties) {
    this.perChat = properties.maxStreamsPerChat();
    this.total = properties.maxStreams();
  }

  /**
   * A place for one stream of the chat, to close when the stream ends.
   *
   * @throws ErrorResponseException {@code 429} when the chat or this orchestrator has no place left
   */
  public synchronized Slot take(String chatId) {
    if (open >= total) {
      throw tooMany(
          open
              + " streams are open on this orchestrator, the most it serves"
              + " (agentrt.events.max-streams); try again later");
    }
    int ofChat = byChat.getOrDefault(chatId, 0);
    if (ofChat >= perChat) {
      throw tooMany(
          "chat "
              + chatId
              + " has "
              + ofChat
              + " streams open, the most one chat may have"
              + " (agentrt.events.max-streams-per-chat); close one first");
    }
    byChat.put(chatId, ofChat + 1);
    open++;
    return new Slot(chatId);
  }

  /** Streams open now: all of them, and the chat's. */
  synchronized int open() {
    return open;
  }

  synchronized int open(String chatId) {
    return byChat.getOrDefault(chatId, 0);
  }

  private synchronized void release(String chatId) {
    byChat.computeIfPresent(chatId, (id, count) -> count == 1 ? null : count - 1);
    open--;
  }

  private static ErrorResponseException tooMany(String reason) {
    return new ErrorResponseException(
        HttpStatus.TOO_MANY_REQUESTS,
        ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, reason),
        null);
  }

  /** One stream's place; closing it frees the place, once however often it is closed. */
  public final class Slot implements AutoCloseable {

    private final String chatId;
    private final AtomicBoolean held = new AtomicBoolean(true);

    private Slot(String chatId) {
      this.chatId = chatId;
    }

    @Override
    public void close() {
      if (held.compareAndSet(true, false)) {
        release(chatId);
      }
    }
  }
}
