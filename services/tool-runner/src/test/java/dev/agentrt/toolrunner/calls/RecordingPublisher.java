package dev.agentrt.toolrunner.calls;

import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.OutboxEntry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records what would be sent to Kafka, acknowledging at once, or never while {@link #refusing}. */
final class RecordingPublisher extends EventPublisher {

  private static final EventCodec CODEC = new EventCodec();

  final List<OutboxEntry> entries = new CopyOnWriteArrayList<>();

  /** The headers each entry was sent with besides its own, in the order of {@link #entries}. */
  final List<Map<String, String>> headers = new CopyOnWriteArrayList<>();

  /** Whether sends fail, as they do when the broker does not acknowledge. */
  volatile boolean refusing;

  RecordingPublisher() {
    super(null, "test");
  }

  @Override
  public CompletableFuture<?> send(OutboxEntry entry, Map<String, String> headers) {
    this.headers.add(headers);
    entries.add(entry);
    return refusing
        ? CompletableFuture.failedFuture(new IllegalStateException("no acknowledgement"))
        : CompletableFuture.completedFuture(null);
  }

  List<Event> events() {
    return entries.stream().map(RecordingPublisher::event).toList();
  }

  static Event event(OutboxEntry entry) {
    return CODEC.decode(entry.ceType(), entry.payload().getBytes(StandardCharsets.UTF_8));
  }
}
