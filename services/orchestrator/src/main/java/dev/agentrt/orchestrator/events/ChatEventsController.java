package dev.agentrt.orchestrator.events;

import dev.agentrt.orchestrator.chat.ChatAccess;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import java.io.IOException;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code GET /api/chats/{chatId}/events}: the chat's run events as Server-Sent Events ({@code id:}
 * the position, {@code event:} the type, {@code data:} the event as JSON). With {@code
 * Last-Event-ID} or {@code ?after=} it starts after that position, so a client that reconnects gets
 * exactly what it missed, then goes live. Each stream follows the durable ledger on a virtual
 * thread of its own; any number of orchestrator copies can serve any chat, and no run waits for a
 * client. A stream holds one of {@link StreamSlots}' places until it ends, however it ends (the
 * client gone, the timeout, an error, shut-down): over the limit {@code 429}.
 */
@RestController
@EnableConfigurationProperties(EventsProperties.class)
class ChatEventsController implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(ChatEventsController.class);

  private final ChatAccess access;
  private final RunLedger ledger;
  private final EventsProperties properties;
  private final StreamSlots slots;
  private final JsonMapper json;
  private final Set<AtomicBoolean> open = ConcurrentHashMap.newKeySet();

  ChatEventsController(
      ChatAccess access,
      RunLedger ledger,
      EventsProperties properties,
      StreamSlots slots,
      JsonMapper json) {
    this.access = access;
    this.ledger = ledger;
    this.properties = properties;
    this.slots = slots;
    this.json = json;
  }

  @GetMapping(path = "/api/chats/{chatId}/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  SseEmitter events(
      @PathVariable String chatId,
      @RequestParam(required = false) @Nullable String after,
      @RequestHeader(name = "Last-Event-ID", required = false) @Nullable String lastEventId) {
    if (access.readable(chatId).isEmpty()) {
      throw new ResponseStatusException(HttpStatus.NOT_FOUND, "no chat with id " + chatId);
    }
    long start =
        lastEventId != null
            ? position("Last-Event-ID", lastEventId)
            : after != null ? position("after", after) : 0;
    StreamSlots.Slot slot = slots.take(chatId);
    SseEmitter emitter = new SseEmitter(properties.streamTimeout().toMillis());
    AtomicBoolean streaming = new AtomicBoolean(true);
    open.add(streaming);
    Runnable close =
        () -> {
          streaming.set(false);
          open.remove(streaming);
          slot.close();
        };
    emitter.onCompletion(close);
    emitter.onTimeout(close);
    emitter.onError(e -> close.run());
    LedgerFollower follower =
        new LedgerFollower(ledger, properties, Clock.systemUTC(), chatId, start);
    Thread.ofVirtual()
        .name("events-" + chatId)
        .start(() -> follow(chatId, follower, emitter, streaming, close));
    return emitter;
  }

  private void follow(
      String chatId,
      LedgerFollower follower,
      SseEmitter emitter,
      AtomicBoolean streaming,
      Runnable close) {
    try {
      emitter.send(SseEmitter.event().reconnectTime(1000).comment("following chat " + chatId));
      follower.follow(
          new LedgerFollower.Sink() {
            @Override
            public void send(RunEvent event) throws IOException {
              emitter.send(
                  SseEmitter.event()
                      .id(Long.toString(event.seq()))
                      .name(event.type())
                      .data(json.writeValueAsString(StreamedEvent.of(event))));
            }

            @Override
            public void heartbeat() throws IOException {
              emitter.send(SseEmitter.event().comment("keep-alive"));
            }
          },
          streaming::get);
      emitter.complete();
    } catch (IOException | IllegalStateException clientGone) {
      log.debug("event stream of chat {} ended: {}", chatId, clientGone.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      emitter.complete();
    } catch (RuntimeException e) {
      log.warn("event stream of chat {} failed: {}", chatId, e.toString());
      emitter.completeWithError(e);
    } finally {
      close.run();
    }
  }

  private static long position(String name, String value) {
    try {
      long position = Long.parseLong(value.strip());
      if (position >= 0) {
        return position;
      }
    } catch (NumberFormatException notANumber) {
      // answered below
    }
    throw new ResponseStatusException(
        HttpStatus.BAD_REQUEST, name + " must be a position (a whole number >= 0), got: " + value);
  }

  /** Ends every stream at shut-down; clients reconnect (to another copy) with Last-Event-ID. */
  @Override
  public void destroy() {
    open.forEach(streaming -> streaming.set(false));
  }
}
