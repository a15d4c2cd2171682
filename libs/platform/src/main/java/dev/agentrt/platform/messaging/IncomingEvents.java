package dev.agentrt.platform.messaging;

import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.InvalidEventException;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.cloudevents.rw.CloudEventRWException;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads a consumed record as an event: CloudEvents headers, then the payload checked against its
 * schema. Anything else is an {@link InvalidEventException}, which the listeners' error handler
 * sends straight to the dead-letter topic.
 */
public class IncomingEvents {

  private final EventCodec codec;

  public IncomingEvents(EventCodec codec) {
    this.codec = codec;
  }

  public Event decode(ConsumerRecord<String, byte[]> record) {
    CloudEvent cloudEvent;
    try {
      cloudEvent = KafkaMessageFactory.createReader(record).toEvent();
    } catch (CloudEventRWException | IllegalStateException e) {
      throw new InvalidEventException("not a CloudEvent in binary mode: " + e.getMessage(), e);
    }
    byte[] payload = cloudEvent.getData() == null ? new byte[0] : cloudEvent.getData().toBytes();
    return codec.decode(cloudEvent.getType(), payload);
  }
}
