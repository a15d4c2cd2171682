package dev.agentrt.platform.messaging;

import dev.agentrt.events.Topics;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.support.KafkaHeaders;

/**
 * Sends a record a listener could not handle to {@code agentrt.dead-letters} with spring-kafka's
 * {@code kafka_dlt-*} headers: the reason, the original topic, partition, offset and consumer
 * group.
 *
 * <p>A record close to the maximum size (1 MiB, the producers' {@code max.request.size} and about
 * the broker's {@code message.max.bytes}) may not fit there: the reason headers, a stack trace of
 * tens of kilobytes among them, make the copy larger than the maximum, the send fails, and retrying
 * it forever would stop the partition. Such a copy loses its stack trace header first; if it is
 * still too large, it goes without its value, with a {@value #VALUE_DROPPED} header saying so, and
 * the original stays on its topic at the partition and offset the headers give.
 */
public final class DeadLetters extends DeadLetterPublishingRecoverer {

  /** On a dead letter whose value was too large to copy: its size and where the original is. */
  public static final String VALUE_DROPPED = "agentrt_dlt-value-dropped";

  /** The default {@link ProducerConfig#MAX_REQUEST_SIZE_CONFIG}, which the services keep. */
  static final int MAX_RECORD_BYTES = 1024 * 1024;

  public DeadLetters(KafkaOperations<?, ?> template) {
    super(template, (record, e) -> new TopicPartition(Topics.DEAD_LETTERS, -1));
  }

  @Override
  protected ProducerRecord<Object, Object> createProducerRecord(
      ConsumerRecord<?, ?> record,
      TopicPartition topicPartition,
      Headers headers,
      byte @Nullable [] key,
      byte @Nullable [] value) {
    ProducerRecord<Object, Object> letter =
        super.createProducerRecord(record, topicPartition, headers, key, value);
    if (size(letter) <= MAX_RECORD_BYTES) {
      return letter;
    }
    letter.headers().remove(KafkaHeaders.DLT_EXCEPTION_STACKTRACE);
    if (size(letter) <= MAX_RECORD_BYTES) {
      return letter;
    }
    String note =
        "value of %d bytes not copied, too large for the dead-letter topic; the original is %s-%d@%d"
            .formatted(
                record.serializedValueSize(), record.topic(), record.partition(), record.offset());
    letter.headers().add(VALUE_DROPPED, note.getBytes(StandardCharsets.UTF_8));
    return new ProducerRecord<>(
        letter.topic(),
        letter.partition(),
        letter.timestamp(),
        letter.key(),
        null,
        letter.headers());
  }

  /** An upper bound of the record's size as the producer measures it against its maximum. */
  private static int size(ProducerRecord<Object, Object> letter) {
    return AbstractRecords.estimateSizeInBytesUpperBound(
        RecordBatch.CURRENT_MAGIC_VALUE,
        CompressionType.NONE,
        bytes(letter.key()),
        bytes(letter.value()),
        letter.headers().toArray());
  }

  private static byte @Nullable [] bytes(@Nullable Object o) {
    return switch (o) {
      case null -> null;
      case byte[] b -> b;
      default -> o.toString().getBytes(StandardCharsets.UTF_8);
    };
  }
}
