package dev.agentrt.platform.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.EventType;
import dev.agentrt.events.TaskCancelled;
import dev.agentrt.events.TaskCompleted;
import dev.agentrt.events.Topics;
import dev.agentrt.platform.outbox.OutboxEntry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.messaging.Message;

/**
 * A consumer binding with the platform's defaults (agentrt-platform.yml) on a real KRaft broker:
 * what its function cannot handle is retried as the binding says, then dead-lettered with its
 * reason and origin, and the partition moves on.
 */
class ConsumerBindingsTest {

  private static final String GROUP = "binding-test";

  /** Attempts per record key, counted before decoding. */
  private static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();

  private static final Queue<String> HANDLED = new ConcurrentLinkedQueue<>();

  /** What reached the tasks binding's function, as "record key: ce_type header". */
  private static final Queue<String> TASK_RECORDS = new ConcurrentLinkedQueue<>();

  private static EmbeddedKafkaKraftBroker kafka;
  private static MongoServer mongoServer;
  private static ConfigurableApplicationContext app;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {

    /** Fails while its chat id says so: {@code fails-2-…} twice, {@code fails-always-…} always. */
    @Bean
    Consumer<Message<byte[]>> chatMessages(IncomingEvents events) {
      return message -> {
        String key = (String) message.getHeaders().get(KafkaHeaders.RECEIVED_KEY);
        int attempt = ATTEMPTS.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        ChatMessageAdded added = (ChatMessageAdded) events.decode(message);
        if (added.chatId().startsWith("fails-always-")
            || (added.chatId().startsWith("fails-2-") && attempt <= 2)) {
          throw new IllegalStateException("the store is down, attempt " + attempt);
        }
        HANDLED.add(added.chatId());
      };
    }

    /** Handles task cancellations only; notes every record that reaches it, before decoding. */
    @Bean
    SelectiveConsumer cancellations(IncomingEvents events) {
      return new SelectiveConsumer() {
        @Override
        public Set<EventType> handles() {
          return Set.of(EventType.TASK_CANCELLED);
        }

        @Override
        public void accept(Message<byte[]> message) {
          Object type = message.getHeaders().get("ce_type");
          TASK_RECORDS.add(
              message.getHeaders().get(KafkaHeaders.RECEIVED_KEY)
                  + ": "
                  + (type instanceof byte[] bytes
                      ? new String(bytes, StandardCharsets.UTF_8)
                      : "none"));
          events.decode(message);
        }
      };
    }
  }

  @BeforeAll
  static void start() {
    kafka = new EmbeddedKafkaKraftBroker(1, 1); // the platform creates the topics
    kafka.afterPropertiesSet();
    mongoServer = new MongoServer(new MemoryBackend());
    app =
        new SpringApplicationBuilder(App.class)
            .run(
                "--spring.application.name=" + GROUP,
                "--spring.config.import=classpath:agentrt-platform.yml",
                "--spring.main.web-application-type=none",
                "--spring.kafka.bootstrap-servers=" + kafka.getBrokersAsString(),
                "--spring.mongodb.uri=mongodb://127.0.0.1:"
                    + mongoServer.bind().getPort()
                    + "/agentrt",
                "--spring.cloud.function.definition=chatMessages;cancellations",
                "--spring.cloud.stream.bindings.chatMessages-in-0.destination="
                    + Topics.CHAT_MESSAGES,
                "--spring.cloud.stream.bindings.cancellations-in-0.destination=" + Topics.TASKS,
                "--spring.cloud.stream.kafka.binder.consumer-properties.interceptor.classes="
                    + CommitCounter.class.getName(),
                // fewer and shorter retries than the shared 8 attempts from 200 ms
                "--spring.cloud.stream.bindings.chatMessages-in-0.consumer.max-attempts=3",
                "--spring.cloud.stream.bindings.chatMessages-in-0.consumer.back-off-initial-interval=10",
                "--spring.cloud.stream.bindings.chatMessages-in-0.consumer.back-off-max-interval=20");
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
    mongoServer.shutdownNow();
    kafka.destroy();
  }

  @Test
  void aRecordThatIsNotAnEventIsDeadLetteredAtOnceAndTheEventsAfterItAreHandled() throws Exception {
    String chatId = "chat-" + UUID.randomUUID();
    double countedBefore = deadLettersCounted();
    RecordMetadata at = send(chatId, "{}".getBytes(StandardCharsets.UTF_8), new RecordHeaders());
    send(chatId, event(chatId));

    ConsumerRecord<String, byte[]> letter = deadLetter(chatId);
    assertThat(text(letter, KafkaHeaders.DLT_EXCEPTION_MESSAGE))
        .contains("not a CloudEvent in binary mode")
        .doesNotContain("\tat ");
    assertThat(text(letter, KafkaHeaders.DLT_EXCEPTION_CAUSE_FQCN))
        .isEqualTo("dev.agentrt.events.InvalidEventException");
    assertThat(text(letter, KafkaHeaders.DLT_ORIGINAL_CONSUMER_GROUP)).isEqualTo(GROUP);
    assertThat(text(letter, KafkaHeaders.DLT_ORIGINAL_TOPIC)).isEqualTo(Topics.CHAT_MESSAGES);
    assertThat(ByteBuffer.wrap(bytes(letter, KafkaHeaders.DLT_ORIGINAL_PARTITION)).getInt())
        .isEqualTo(at.partition());
    assertThat(ByteBuffer.wrap(bytes(letter, KafkaHeaders.DLT_ORIGINAL_OFFSET)).getLong())
        .isEqualTo(at.offset());
    assertThat(letter.value()).isEqualTo("{}".getBytes(StandardCharsets.UTF_8));
    await().atMost(Duration.ofSeconds(30)).until(() -> HANDLED.contains(chatId));
    assertThat(ATTEMPTS.get(chatId)).as("the poison once, then the event").hasValue(2);
    await().atMost(Duration.ofSeconds(30)).until(() -> deadLettersCounted() >= countedBefore + 1);
  }

  private static double deadLettersCounted() {
    Counter counted =
        app.getBean(MeterRegistry.class)
            .find("agentrt.dead.letters")
            .tags("topic", Topics.CHAT_MESSAGES, "group", GROUP)
            .counter();
    return counted == null ? 0 : counted.count();
  }

  /** Binary mode needs only the {@code ce_*} headers; {@code content-type} is optional. */
  @Test
  void anEventWithoutContentTypeIsHandled() throws Exception {
    String chatId = "chat-" + UUID.randomUUID();
    ProducerRecord<String, byte[]> event = event(chatId);
    event.headers().remove("content-type");
    send(chatId, event);

    await().atMost(Duration.ofSeconds(30)).until(() -> HANDLED.contains(chatId));
  }

  @Test
  void aFailureThatPassesIsRetriedUntilHandled() throws Exception {
    String chatId = "fails-2-" + UUID.randomUUID();
    send(chatId, event(chatId));

    await().atMost(Duration.ofSeconds(30)).until(() -> HANDLED.contains(chatId));
    assertThat(ATTEMPTS.get(chatId)).as("two failures, then handled").hasValue(3);
  }

  @Test
  void aFailureThatLastsIsDeadLetteredAfterTheBindingsAttempts() throws Exception {
    String chatId = "fails-always-" + UUID.randomUUID();
    send(chatId, event(chatId));

    ConsumerRecord<String, byte[]> letter = deadLetter(chatId);
    assertThat(ATTEMPTS.get(chatId)).hasValue(3);
    assertThat(text(letter, KafkaHeaders.DLT_EXCEPTION_MESSAGE))
        .contains("the store is down, attempt 3");
    assertThat(text(letter, KafkaHeaders.DLT_ORIGINAL_CONSUMER_GROUP)).isEqualTo(GROUP);
    assertThat(HANDLED).doesNotContain(chatId);
  }

  /**
   * A function that handles some of its topic's event types sees no record of the others; a record
   * that is not a CloudEvent still reaches it, and is dead-lettered.
   */
  @Test
  void aSelectiveConsumerSeesOnlyTheEventTypesItHandles() throws Exception {
    String taskId = "task-" + UUID.randomUUID();
    Instant now = Instant.now();
    send(
        taskId,
        record(new TaskCompleted(UUID.randomUUID().toString(), now, taskId, "c", "s", "r")));
    send(taskId, new ProducerRecord<>(Topics.TASKS, taskId, "{}".getBytes(StandardCharsets.UTF_8)));
    send(
        taskId,
        record(new TaskCancelled(UUID.randomUUID().toString(), now, taskId, "c", null, "")));

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> TASK_RECORDS.contains(taskId + ": dev.agentrt.TaskCancelled"));
    assertThat(TASK_RECORDS.stream().filter(seen -> seen.startsWith(taskId + ":")))
        .as("in the order sent: the completion dropped unread, the record that is no event kept")
        .containsExactly(taskId + ": none", taskId + ": dev.agentrt.TaskCancelled");
    assertThat(text(deadLetter(taskId), KafkaHeaders.DLT_ORIGINAL_TOPIC)).isEqualTo(Topics.TASKS);
  }

  /**
   * Twenty records of one chat, each sent once the one before it was handled, so each comes in a
   * poll of its own: their offsets are committed once per second of the run ({@code ack-mode:
   * time}), not after each poll, which would be twenty commits unless the run took longer than
   * twenty seconds. The last one is committed as well, though nothing comes after it.
   */
  @Test
  void handledRecordsAreCommittedOnceASecondNotAfterEveryPoll() throws Exception {
    String chatId = "chat-" + UUID.randomUUID();
    int records = 20;
    RecordMetadata last = null;
    long started = System.nanoTime();
    int committedBefore = 0;
    for (int i = 0; i < records; i++) {
      last = send(chatId, event(chatId));
      if (i == 0) {
        committedBefore = CommitCounter.commitsOf(last.topic(), last.partition());
      }
      int handled = i + 1;
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> HANDLED.stream().filter(chatId::equals).count() == handled);
    }
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
    int commits = CommitCounter.commitsOf(last.topic(), last.partition()) - committedBefore;

    assertThat(commits).as("commits in %d s", seconds).isLessThanOrEqualTo((int) seconds + 2);
    TopicPartition partition = new TopicPartition(last.topic(), last.partition());
    long end = last.offset() + 1;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.getBrokersAsString()))) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                OffsetAndMetadata committed =
                    admin
                        .listConsumerGroupOffsets(GROUP)
                        .partitionsToOffsetAndMetadata()
                        .get()
                        .get(partition);
                return committed != null && committed.offset() >= end;
              });
    }
  }

  /** Counts the commits that include each partition, in every consumer of the test's bindings. */
  public static class CommitCounter implements ConsumerInterceptor<Object, Object> {

    private static final Map<TopicPartition, AtomicInteger> COMMITS = new ConcurrentHashMap<>();

    static int commitsOf(String topic, int partition) {
      AtomicInteger commits = COMMITS.get(new TopicPartition(topic, partition));
      return commits == null ? 0 : commits.get();
    }

    @Override
    public ConsumerRecords<Object, Object> onConsume(ConsumerRecords<Object, Object> records) {
      return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
      offsets
          .keySet()
          .forEach(p -> COMMITS.computeIfAbsent(p, k -> new AtomicInteger()).incrementAndGet());
    }

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
  }

  private static ProducerRecord<String, byte[]> record(Event event) {
    return app.getBean(EventPublisher.class).record(OutboxEntry.of(event, new EventCodec()));
  }

  private static ProducerRecord<String, byte[]> event(String chatId) {
    ChatMessageAdded added =
        new ChatMessageAdded(
            UUID.randomUUID().toString(), Instant.now(), chatId, "m-1", "user", null);
    return record(added);
  }

  private static RecordMetadata send(String key, byte[] value, RecordHeaders headers)
      throws Exception {
    return send(key, new ProducerRecord<>(Topics.CHAT_MESSAGES, null, key, value, headers));
  }

  private static RecordMetadata send(String key, ProducerRecord<String, byte[]> record)
      throws Exception {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", kafka.getBrokersAsString()),
            new StringSerializer(),
            new ByteArraySerializer())) {
      return producer.send(record).get(10, TimeUnit.SECONDS);
    }
  }

  private static ConsumerRecord<String, byte[]> deadLetter(String key) {
    return DeadLetterTopic.deadLetter(kafka.getBrokersAsString(), key);
  }

  private static byte[] bytes(ConsumerRecord<String, byte[]> record, String header) {
    return DeadLetterTopic.bytes(record, header);
  }

  private static String text(ConsumerRecord<String, byte[]> record, String header) {
    return DeadLetterTopic.text(record, header);
  }
}
