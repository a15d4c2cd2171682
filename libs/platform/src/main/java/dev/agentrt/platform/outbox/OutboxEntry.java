package dev.agentrt.platform.outbox;

import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * An event still to publish, stored inside the document whose write caused it (DESIGN invariant 1).
 * The payload is kept encoded, so a republished event is byte for byte the one stored. The first
 * publish may send the same event carrying more (a tool message's event carries its result, which
 * the stored one leaves to the message it is stored in).
 *
 * @param traceparent the W3C trace context of the work that caused the event, taken when the entry
 *     is made and sent in the record's {@code traceparent} header, so the work the event triggers
 *     continues the same trace even when the relay publishes it after a crash; null outside a trace
 */
public record OutboxEntry(
    String eventId,
    String ceType,
    String topic,
    String key,
    Instant occurredAt,
    String payload,
    @Nullable String traceparent) {

  /** The W3C header that carries the trace context. */
  public static final String TRACEPARENT = "traceparent";

  public static OutboxEntry of(Event event, EventCodec codec) {
    return new OutboxEntry(
        event.eventId(),
        event.type().ceType(),
        event.type().topic(),
        event.key(),
        event.occurredAt(),
        new String(codec.encode(event), StandardCharsets.UTF_8),
        currentTraceparent());
  }

  /** The {@code traceparent} of the span current on this thread; null when there is none. */
  static @Nullable String currentTraceparent() {
    String[] traceparent = new String[1];
    W3CTraceContextPropagator.getInstance()
        .inject(
            Context.current(),
            traceparent,
            (carrier, name, value) -> {
              if (TRACEPARENT.equals(name)) {
                carrier[0] = value;
              }
            });
    return traceparent[0];
  }
}
