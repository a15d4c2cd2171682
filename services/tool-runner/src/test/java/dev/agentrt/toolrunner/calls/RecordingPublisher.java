package dev.agentrt.toolrunner.calls;

import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.OutboxEntry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records what would be sent to Kafka, acknowledging at once, or when a test says so ({@link
 * #holdAcknowledgements}): a broker that is down.
 */
final class RecordingPublisher extends EventPublisher {

  private static final EventCodec CODEC = new EventCodec();

  final List<OutboxEntry> entries = new CopyOnWriteArrayList<>();

  private volatile CompletableFuture<Void> acknowledged = CompletableFuture.completedFuture(null);

  RecordingPublisher() {
    super(null, "test");
  }

  @Override
  public CompletableFuture<?> send(OutboxEntry entry) {
    entries.add(entry);
    return acknowledged;
  }

  /** From now on, what is sent is acknowledged when the future returned is completed. */
  CompletableFuture<Void> holdAcknowledgements() {
    acknowledged = new CompletableFuture<>();
    return acknowledged;
  }

  List<Event> events() {
    return entries.stream()
        .map(e -> CODEC.decode(e.ceType(), e.payload().getBytes(StandardCharsets.UTF_8)))
        .toList();
  }
}
