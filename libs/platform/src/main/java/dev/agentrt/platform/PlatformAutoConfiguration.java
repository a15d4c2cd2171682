package dev.agentrt.platform;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TopicCatalog;
import dev.agentrt.platform.messaging.DeadLetters;
import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.messaging.IncomingEvents;
import dev.agentrt.platform.messaging.ListenerErrorHandling;
import dev.agentrt.platform.messaging.UnhandledEventTypes;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxProperties;
import dev.agentrt.platform.outbox.OutboxRelay;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationPredicate;
import java.time.Clock;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.cloud.function.core.FunctionInvocationHelper;
import org.springframework.cloud.stream.config.BindingServiceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.http.server.observation.ServerRequestObservationContext;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.messaging.Message;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * What every service gets from the platform: the event codec, a publisher with CloudEvents headers,
 * the outbox and its relay, the topics of the catalog, and listeners whose unreadable records go to
 * the dead-letter topic.
 */
@AutoConfiguration(
    before = KafkaAutoConfiguration.class,
    beforeName =
        "org.springframework.cloud.function.cloudevent.CloudEventsFunctionExtensionConfiguration")
@EnableScheduling
@EnableConfigurationProperties(OutboxProperties.class)
public class PlatformAutoConfiguration {

  @Bean
  EventCodec eventCodec() {
    return new EventCodec();
  }

  @Bean
  IncomingEvents incomingEvents(EventCodec codec) {
    return new IncomingEvents(codec);
  }

  /**
   * What the outbox and the dead letters publish with. A plain template rather than a binder output
   * binding ({@code StreamBridge}): the outbox sends all of a document's entries at once and needs
   * each one's acknowledgement (a future per record, so the relay counts and sets aside the one
   * that failed), with its key and its CloudEvents headers written byte for byte by the CloudEvents
   * Kafka writer, and without the binder's {@code contentType} and JSON type headers. Its own
   * serializers: with the binder present Boot's defaults are byte arrays for keys too.
   */
  @Bean
  KafkaTemplate<String, byte[]> eventKafkaTemplate(KafkaProperties properties) {
    Map<String, Object> config = properties.buildProducerProperties();
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    return new KafkaTemplate<>(
        new DefaultKafkaProducerFactory<>(
            config, new StringSerializer(), new ByteArraySerializer()));
  }

  @Bean
  EventPublisher eventPublisher(
      KafkaTemplate<String, byte[]> template, @Value("${spring.application.name}") String name) {
    return new EventPublisher(template, name);
  }

  /** Single-document writes of many callers, one bulk write per collection. */
  @Bean
  BulkWrites bulkWrites(MongoTemplate mongo) {
    return new BulkWrites(mongo);
  }

  /**
   * The process's writes nobody waits for, made within {@code agentrt.outbox.removal-delay}, many
   * in one write: published outbox entries' removals, tool calls' ends of holds, written answers'
   * pending answers removed.
   */
  @Bean
  LaterUpdates laterUpdates(BulkWrites writes, OutboxProperties properties) {
    return new LaterUpdates(writes, "later-updates", properties.removalDelay());
  }

  @Bean
  Outbox outbox(
      EventPublisher publisher,
      MongoTemplate mongo,
      BulkWrites writes,
      LaterUpdates later,
      OutboxProperties properties) {
    return new Outbox(publisher, mongo, writes, properties.removedLater(), later);
  }

  @Bean
  DeadLetters deadLetters(KafkaTemplate<String, byte[]> template) {
    return new DeadLetters(template);
  }

  @Bean
  OutboxRelay outboxRelay(
      Outbox outbox,
      EventPublisher publisher,
      DeadLetters deadLetters,
      MongoTemplate mongo,
      OutboxProperties properties,
      ObjectProvider<MeterRegistry> meters) {
    OutboxRelay relay =
        new OutboxRelay(outbox, publisher, deadLetters, mongo, properties, Clock.systemUTC());
    relay.measure(meters.getIfAvailable(SimpleMeterRegistry::new));
    return relay;
  }

  /**
   * Picked up by the Kafka binder for every consumer binding: a message that is not a valid event
   * is dead-lettered at once; any other failure is retried with backoff, then dead-lettered. Either
   * way the partition keeps moving.
   */
  @Bean
  ListenerErrorHandling listenerErrorHandling(
      KafkaTemplate<String, byte[]> template, ObjectProvider<MeterRegistry> meters) {
    return new ListenerErrorHandling(template, meters.getIfAvailable(SimpleMeterRegistry::new));
  }

  /**
   * Picked up by the binder for every consumer binding: the function of a binding that handles only
   * some of its topic's event types never sees the others.
   */
  @Bean
  UnhandledEventTypes unhandledEventTypes(
      BindingServiceProperties bindings, BeanFactory functions) {
    return new UnhandledEventTypes(bindings, functions);
  }

  /**
   * Hands a binding's message to its function as it came. Spring Cloud Function's own CloudEvents
   * helper, which this replaces, renames the {@code ce_*} headers to {@code ce-*} (only when the
   * record has no {@code content-type} header), so that {@link IncomingEvents} would no longer see
   * the envelope as it is on the wire; and it copies every message's headers to do so.
   */
  @Bean
  FunctionInvocationHelper<Message<?>> messagesAsTheyCame() {
    return new FunctionInvocationHelper<>() {};
  }

  /**
   * What is not observed: the sweeps and the relay that run every second (a trace each, about
   * nothing a person asked for; the work they take up continues its own trace from what it stored),
   * and the health checks and scrapes of {@code /actuator}.
   */
  @Bean
  ObservationPredicate notTheSweepsNorTheActuator() {
    return (name, context) ->
        !name.equals("tasks.scheduled.execution")
            && !(context instanceof ServerRequestObservationContext request
                && request.getCarrier().getRequestURI().startsWith("/actuator"));
  }

  /** Every topic of the catalog, created at start-up when missing (Boot's KafkaAdmin does it). */
  @Bean
  KafkaAdmin.NewTopics catalogTopics() {
    return new KafkaAdmin.NewTopics(
        TopicCatalog.topics().stream()
            .map(t -> new NewTopic(t.name(), t.partitions(), (short) -1))
            .toArray(NewTopic[]::new));
  }
}
