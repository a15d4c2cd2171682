package dev.agentrt.platform.messaging;

import dev.agentrt.events.EventType;
import dev.agentrt.platform.outbox.OutboxEntry;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * Sends events as CloudEvents in binary mode: the JSON payload as the record value, the envelope in
 * {@code ce_*} headers, the event's key as record key and subject; and the trace context of the
 * work that made the event in the W3C {@code traceparent} header, which the consumer's observation
 * continues.
 */
public class EventPublisher {

  private final KafkaTemplate<String, byte[]> template;
  private final URI source;

  public EventPublisher(KafkaTemplate<String, byte[]> template, String serviceName) {
    this.template = template;
    this.source = URI.create("/agentrt/" + serviceName);
  }

  public CompletableFuture<?> send(OutboxEntry entry) {
    return send(entry, Map.of());
  }

  /** {@link #send(OutboxEntry)} with these headers on the record too (name → text). */
  public CompletableFuture<?> send(OutboxEntry entry, Map<String, String> headers) {
    ProducerRecord<String, byte[]> record = record(entry);
    headers.forEach(
        (name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
    return template.send(record);
  }

  /** The record {@link #send} produces for the entry. */
  public ProducerRecord<String, byte[]> record(OutboxEntry entry) {
    EventType type =
        EventType.ofCeType(entry.ceType())
            .orElseThrow(() -> new IllegalArgumentException("unknown type " + entry.ceType()));
    CloudEvent event =
        CloudEventBuilder.v1()
            .withId(entry.eventId())
            .withType(entry.ceType())
            .withSource(source)
            .withTime(entry.occurredAt().atOffset(ZoneOffset.UTC))
            .withSubject(entry.key())
            .withDataSchema(type.dataSchema())
            .withDataContentType("application/json")
            .withData(entry.payload().getBytes(StandardCharsets.UTF_8))
            .build();
    ProducerRecord<String, byte[]> record =
        KafkaMessageFactory.<String>createWriter(entry.topic(), entry.key()).writeBinary(event);
    if (entry.traceparent() != null) {
      record
          .headers()
          .add(OutboxEntry.TRACEPARENT, entry.traceparent().getBytes(StandardCharsets.UTF_8));
    }
    return record;
  }
}
