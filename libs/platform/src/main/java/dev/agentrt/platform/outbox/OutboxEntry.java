package dev.agentrt.platform.outbox;

import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * An event still to publish, stored inside the document whose write caused it (DESIGN invariant 1).
 * The payload is kept encoded, so a republished event is byte for byte the one first sent.
 */
public record OutboxEntry(
    String eventId, String ceType, String topic, String key, Instant occurredAt, String payload) {

  public static OutboxEntry of(Event event, EventCodec codec) {
    return new OutboxEntry(
        event.eventId(),
        event.type().ceType(),
        event.type().topic(),
        event.key(),
        event.occurredAt(),
        new String(codec.encode(event), StandardCharsets.UTF_8));
  }
}
