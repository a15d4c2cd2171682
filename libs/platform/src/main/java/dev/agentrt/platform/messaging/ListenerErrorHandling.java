package dev.agentrt.platform.messaging;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.BiFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.springframework.cloud.stream.binder.ExtendedConsumerProperties;
import org.springframework.cloud.stream.binder.kafka.ListenerContainerWithDlqAndRetryCustomizer;
import org.springframework.cloud.stream.binder.kafka.properties.KafkaConsumerProperties;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * What a consumer binding does with a message its function could not handle, from the binding's own
 * properties: retried on the consumer's thread with the binding's back-off ({@code max-attempts},
 * {@code back-off-*}) unless its exception is not {@code retryable-exceptions}, then, where the
 * binding has {@code enable-dlq}, sent to its {@code dlq-name} by {@link DeadLetters} (the
 * size-safe copy with spring-kafka's {@code kafka_dlt-*} headers), else logged. Either way the
 * partition moves on.
 *
 * <p>The binder's own retry and dead-lettering are switched off for this: its dead letters carry
 * other headers ({@code x-original-topic}, …) and no consumer group, and cannot leave out what does
 * not fit in a record.
 */
public class ListenerErrorHandling implements ListenerContainerWithDlqAndRetryCustomizer {

  private final KafkaOperations<String, byte[]> template;
  private final MeterRegistry meters;

  /** Counts the dead letters of each binding in {@code meters} ({@code agentrt.dead.letters}). */
  public ListenerErrorHandling(KafkaOperations<String, byte[]> template, MeterRegistry meters) {
    this.template = template;
    this.meters = meters;
  }

  @Override
  public boolean retryAndDlqInBinding(String destinationName, String group) {
    return false;
  }

  @Override
  public void configure(
      AbstractMessageListenerContainer<?, ?> container,
      String destinationName,
      String group,
      @Nullable BiFunction<ConsumerRecord<?, ?>, Exception, TopicPartition> dlqDestinationResolver,
      @Nullable BackOff backOff) {
    throw new UnsupportedOperationException("the binder passes the binding's properties");
  }

  @Override
  public void configure(
      AbstractMessageListenerContainer<?, ?> container,
      String destinationName,
      String group,
      @Nullable BiFunction<ConsumerRecord<?, ?>, Exception, TopicPartition> dlqDestinationResolver,
      @Nullable BackOff backOff,
      ExtendedConsumerProperties<KafkaConsumerProperties> properties) {
    DefaultErrorHandler handler =
        dlqDestinationResolver == null
            ? new DefaultErrorHandler(retries(backOff))
            : new DefaultErrorHandler(
                new DeadLetters(
                    template,
                    dlqDestinationResolver,
                    Counter.builder("agentrt.dead.letters")
                        .description("Records a consumer binding could not handle, dead-lettered")
                        .tag("topic", destinationName)
                        .tag("group", group)
                        .register(meters)),
                retries(backOff));
    properties
        .getRetryableExceptions()
        .forEach(
            (type, retryable) -> {
              if (!retryable && Exception.class.isAssignableFrom(type)) {
                handler.addNotRetryableExceptions(type.asSubclass(Exception.class));
              }
            });
    container.setCommonErrorHandler(handler);
  }

  private static BackOff retries(@Nullable BackOff backOff) {
    return backOff == null ? new FixedBackOff(0, 0) : backOff;
  }
}
