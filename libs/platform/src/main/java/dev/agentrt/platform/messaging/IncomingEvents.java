package dev.agentrt.platform.messaging;

import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.InvalidEventException;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.cloudevents.rw.CloudEventRWException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.springframework.messaging.Message;

/**
 * Reads a consumed message as an event: CloudEvents headers, then the payload checked against its
 * schema. Anything else is an {@link InvalidEventException}, which the bindings' error handler
 * sends straight to the dead-letter topic.
 *
 * <p>The binder hands the record's headers over as they were on the wire (byte arrays, beside its
 * own {@code kafka_*} headers of other types); the CloudEvents Kafka reader reads them as it would
 * the record's.
 */
public class IncomingEvents {

  private final EventCodec codec;

  public IncomingEvents(EventCodec codec) {
    this.codec = codec;
  }

  /** A message a consumer binding received. */
  public Event decode(Message<byte[]> message) {
    RecordHeaders headers = new RecordHeaders();
    message
        .getHeaders()
        .forEach(
            (name, value) -> {
              if (value instanceof byte[] bytes) {
                headers.add(name, bytes);
              }
            });
    return decode(headers, message.getPayload());
  }

  /** A record read with a plain Kafka consumer. */
  public Event decode(ConsumerRecord<?, byte[]> record) {
    return decode(record.headers(), record.value());
  }

  private Event decode(Headers headers, byte[] value) {
    CloudEvent cloudEvent;
    try {
      cloudEvent = KafkaMessageFactory.createReader(headers, value).toEvent();
    } catch (CloudEventRWException | IllegalStateException e) {
      throw new InvalidEventException("not a CloudEvent in binary mode: " + e.getMessage(), e);
    }
    byte[] payload = cloudEvent.getData() == null ? new byte[0] : cloudEvent.getData().toBytes();
    return codec.decode(cloudEvent.getType(), payload);
  }
}
