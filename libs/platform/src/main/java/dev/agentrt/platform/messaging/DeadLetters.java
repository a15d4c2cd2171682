package dev.agentrt.platform.messaging;

import dev.agentrt.events.Topics;
import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.MessagingException;

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
 *
 * <p>An outbox entry the relay could never publish goes the same way ({@link #sendUnpublished}),
 * with its original topic and the reason, so that a replay puts it on its topic once its cause is
 * fixed; it has no partition or offset, having never reached its topic.
 */
public final class DeadLetters extends DeadLetterPublishingRecoverer {

  /** On a dead letter whose value was too large to copy: its size and where the original is. */
  public static final String VALUE_DROPPED = "agentrt_dlt-value-dropped";

  /** On the dead letter of an outbox entry: where the entry is kept (collection and id). */
  public static final String SET_ASIDE = "agentrt_dlt-set-aside";

  /** The default {@link ProducerConfig#MAX_REQUEST_SIZE_CONFIG}, which the services keep. */
  static final int MAX_RECORD_BYTES = 1024 * 1024;

  private final KafkaOperations<String, byte[]> template;
  private final @Nullable Counter sent;

  /** Dead letters to {@code agentrt.dead-letters}. */
  public DeadLetters(KafkaOperations<String, byte[]> template) {
    this(template, (record, e) -> new TopicPartition(Topics.DEAD_LETTERS, -1), null);
  }

  /**
   * Dead letters where a binding's {@code dlq-name} says.
   *
   * @param sent counts the records dead-lettered; null: not counted
   */
  public DeadLetters(
      KafkaOperations<String, byte[]> template,
      BiFunction<ConsumerRecord<?, ?>, Exception, TopicPartition> destination,
      @Nullable Counter sent) {
    super(template, destination);
    this.template = template;
    this.sent = sent;
  }

  /**
   * Sends a record its producer could never publish (an outbox entry the relay set aside) as a dead
   * letter: its key, value and headers, with its original topic, the reason and where the entry is
   * kept. A value too large to copy is left out, with a {@value #VALUE_DROPPED} header saying so.
   *
   * @param keptIn where the entry is kept, e.g. {@code outbox_set_aside/<eventId>}
   * @return completes when the broker has acknowledged the dead letter
   */
  public CompletableFuture<?> sendUnpublished(
      ProducerRecord<String, byte[]> record, Throwable reason, String keptIn) {
    Headers headers = new RecordHeaders(record.headers().toArray());
    headers.add(KafkaHeaders.DLT_ORIGINAL_TOPIC, utf8(record.topic()));
    headers.add(KafkaHeaders.DLT_EXCEPTION_FQCN, utf8(reason.getClass().getName()));
    headers.add(KafkaHeaders.DLT_EXCEPTION_MESSAGE, utf8(String.valueOf(reason.getMessage())));
    headers.add(SET_ASIDE, utf8(keptIn));
    ProducerRecord<String, byte[]> letter =
        new ProducerRecord<>(Topics.DEAD_LETTERS, null, record.key(), record.value(), headers);
    if (size(letter.key(), letter.value(), headers) > MAX_RECORD_BYTES) {
      String note =
          "value of %d bytes not copied, too large for the dead-letter topic; the entry is kept in %s"
              .formatted(record.value() == null ? 0 : record.value().length, keptIn);
      headers.add(VALUE_DROPPED, utf8(note));
      letter = new ProducerRecord<>(Topics.DEAD_LETTERS, null, record.key(), null, headers);
    }
    return template.send(letter);
  }

  /**
   * Dead-letters a record a consumer binding failed on, saying why in the function's words: the
   * binder hands its exception over wrapped in Spring Messaging's, whose message only names the
   * binder's handler.
   */
  @Override
  public void accept(
      ConsumerRecord<?, ?> record, @Nullable Consumer<?, ?> consumer, Exception exception) {
    super.accept(record, consumer, unwrapped(exception));
    if (sent != null) {
      sent.increment();
    }
  }

  /** The listener's failure with the function's exception as its cause, the group kept. */
  static Exception unwrapped(Exception exception) {
    if (!(exception instanceof ListenerExecutionFailedException failed)
        || !(failed.getCause() instanceof MessagingException)) {
      return exception;
    }
    Throwable cause = failed.getCause();
    while (cause instanceof MessagingException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return new ListenerExecutionFailedException("Listener failed", failed.getGroupId(), cause);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
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
    return size(letter.key(), letter.value(), letter.headers());
  }

  private static int size(@Nullable Object key, @Nullable Object value, Headers headers) {
    return AbstractRecords.estimateSizeInBytesUpperBound(
        RecordBatch.CURRENT_MAGIC_VALUE,
        CompressionType.NONE,
        bytes(key),
        bytes(value),
        headers.toArray());
  }

  private static byte @Nullable [] bytes(@Nullable Object o) {
    return switch (o) {
      case null -> null;
      case byte[] b -> b;
      default -> o.toString().getBytes(StandardCharsets.UTF_8);
    };
  }
}
