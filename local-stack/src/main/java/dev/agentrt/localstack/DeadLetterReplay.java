package dev.agentrt.localstack;

import dev.agentrt.events.Topics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;

/**
 * Puts dead letters back on the topic they came from, for an operator who has fixed their cause:
 * {@code ./run.sh --replay-dead-letters [--topic T] [--from-offset N] [--dry-run]}.
 *
 * <p>Each dead letter's key, value and headers are produced to its {@code
 * kafka_dlt-original-topic}, without the {@code kafka_dlt-*} and {@code agentrt_dlt-*} headers the
 * dead-lettering added, so the CloudEvents headers ({@code ce_*}) arrive as they were. A record
 * dead-lettered by several consumer groups (a task event is read by three services) is replayed
 * once; so is an outbox entry the relay set aside, which has no partition or offset, only its event
 * id. Skipped, and counted: a record without an original topic (not a dead letter) and one whose
 * value was too large to copy (its original is still on its topic, at the offset the headers give).
 * The services' consumers are idempotent, so replaying something already handled changes nothing.
 */
public final class DeadLetterReplay {

  static final String USAGE =
      """
      Usage: ./run.sh --replay-dead-letters [options]

      Produces each dead letter of agentrt.dead-letters again to its original topic: same key, value
      and CloudEvents headers, without the kafka_dlt-* headers. Prints how many it replayed.

      Options:
        --topic T                 only dead letters whose original topic is T
        --from-offset N           start at offset N of agentrt.dead-letters (default 0); the output
                                  says where the next replay can start
        --dry-run                 only print what would be replayed
        --bootstrap-servers HOST:PORT
                                  the broker (default $KAFKA_BOOTSTRAP_SERVERS, else 127.0.0.1:9092)
        -h, --help                show this help
      """;

  static final String ORIGINAL_TOPIC = "kafka_dlt-original-topic";
  static final String ORIGINAL_PARTITION = "kafka_dlt-original-partition";
  static final String ORIGINAL_OFFSET = "kafka_dlt-original-offset";
  static final String REASON = "kafka_dlt-exception-message";
  static final String VALUE_DROPPED = "agentrt_dlt-value-dropped";
  static final String EVENT_ID = "ce_id";

  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  /** What a replay did. {@code nextOffset} is where the next one can start. */
  record Result(
      Map<String, Integer> replayedByTopic,
      int duplicates,
      int otherTopics,
      List<String> skipped,
      long nextOffset) {

    int replayed() {
      return replayedByTopic.values().stream().mapToInt(Integer::intValue).sum();
    }

    String summary(boolean dryRun) {
      StringBuilder out = new StringBuilder();
      out.append(dryRun ? "would replay " : "replayed ")
          .append(replayed())
          .append(" dead letter(s)")
          .append(replayedByTopic.isEmpty() ? "" : " " + replayedByTopic)
          .append('\n');
      if (duplicates > 0) {
        out.append("  ").append(duplicates).append(" copies from other consumer groups left out\n");
      }
      if (otherTopics > 0) {
        out.append("  ").append(otherTopics).append(" from other topics left out\n");
      }
      skipped.forEach(s -> out.append("  skipped ").append(s).append('\n'));
      out.append("next replay: --from-offset ").append(nextOffset);
      return out.toString();
    }
  }

  private DeadLetterReplay() {}

  public static void main(String[] args) {
    System.setProperty("logback.configurationFile", "replay-logback.xml");
    try {
      System.out.println(run(List.of(args), System.getenv()));
    } catch (LaunchException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(e.exitCode());
    }
  }

  /** Parses the arguments, replays, and returns what to print. */
  static String run(List<String> args, Map<String, String> env) {
    String bootstrap = env.getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
    String topic = null;
    long fromOffset = 0;
    boolean dryRun = false;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      switch (arg) {
        case "-h", "--help" -> {
          return USAGE;
        }
        case "--dry-run" -> dryRun = true;
        case "--topic" -> topic = value(args, ++i, arg);
        case "--bootstrap-servers" -> bootstrap = value(args, ++i, arg);
        case "--from-offset" -> {
          try {
            fromOffset = Long.parseLong(value(args, ++i, arg));
          } catch (NumberFormatException e) {
            throw LaunchException.usage("--from-offset needs a number\n\n" + USAGE);
          }
        }
        default -> throw LaunchException.usage("unknown option " + arg + "\n\n" + USAGE);
      }
    }
    return replay(bootstrap, topic, fromOffset, dryRun).summary(dryRun);
  }

  /**
   * Replays the dead letters from {@code fromOffset} to the current end of the topic.
   *
   * @param topic only those from this original topic; null for all
   */
  static Result replay(String bootstrap, @Nullable String topic, long fromOffset, boolean dryRun) {
    Map<String, Integer> replayed = new TreeMap<>();
    Set<String> seen = new HashSet<>();
    List<String> skipped = new ArrayList<>();
    int duplicates = 0;
    int otherTopics = 0;
    long next = fromOffset;
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap);
        KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
      TopicPartition deadLetters = new TopicPartition(Topics.DEAD_LETTERS, 0);
      consumer.assign(List.of(deadLetters));
      long end = consumer.endOffsets(List.of(deadLetters)).get(deadLetters);
      consumer.seek(deadLetters, Math.min(fromOffset, end));
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (consumer.position(deadLetters) < end) {
        if (System.nanoTime() > deadline) {
          throw new LaunchException(
              "could not read agentrt.dead-letters up to offset " + end + " in time");
        }
        for (ConsumerRecord<byte[], byte[]> letter : consumer.poll(Duration.ofMillis(500))) {
          next = letter.offset() + 1;
          String original = text(letter.headers(), ORIGINAL_TOPIC);
          if (original == null) {
            skipped.add("offset " + letter.offset() + ": no " + ORIGINAL_TOPIC + " header");
            continue;
          }
          if (topic != null && !topic.equals(original)) {
            otherTopics++;
            continue;
          }
          String origin = origin(letter.headers(), original);
          if (!seen.add(origin)) {
            duplicates++;
            continue;
          }
          if (letter.headers().lastHeader(VALUE_DROPPED) != null) {
            skipped.add("offset " + letter.offset() + ": " + text(letter.headers(), VALUE_DROPPED));
            continue;
          }
          if (!dryRun) {
            producer
                .send(
                    new ProducerRecord<>(
                        original, null, letter.key(), letter.value(), withoutDlt(letter)))
                .get();
          }
          replayed.merge(original, 1, Integer::sum);
        }
      }
      next = Math.max(next, end);
    } catch (ExecutionException e) {
      throw new LaunchException("cannot replay: " + e.getCause().getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LaunchException("interrupted");
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new LaunchException("cannot replay from " + bootstrap + ": " + e.getMessage());
    }
    return new Result(replayed, duplicates, otherTopics, skipped, next);
  }

  /**
   * Where the dead letter's record came from: its topic, partition and offset; for an outbox entry
   * that never reached its topic (no offset), its event id.
   */
  private static String origin(Headers headers, String topic) {
    Header partition = headers.lastHeader(ORIGINAL_PARTITION);
    Header offset = headers.lastHeader(ORIGINAL_OFFSET);
    if (offset == null && headers.lastHeader(EVENT_ID) != null) {
      return topic + "#" + text(headers, EVENT_ID);
    }
    return topic
        + "-"
        + (partition == null ? "?" : ByteBuffer.wrap(partition.value()).getInt())
        + "@"
        + (offset == null ? "?" : ByteBuffer.wrap(offset.value()).getLong());
  }

  private static Headers withoutDlt(ConsumerRecord<byte[], byte[]> letter) {
    RecordHeaders headers = new RecordHeaders();
    for (Header h : letter.headers()) {
      if (!h.key().startsWith("kafka_dlt-") && !h.key().startsWith("agentrt_dlt-")) {
        headers.add(h);
      }
    }
    return headers;
  }

  private static @Nullable String text(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  private static String value(List<String> args, int i, String option) {
    if (i >= args.size()) {
      throw LaunchException.usage(option + " needs a value\n\n" + USAGE);
    }
    return args.get(i);
  }

  private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
    return new KafkaConsumer<>(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false,
            ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            15_000),
        new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.MAX_BLOCK_MS_CONFIG,
            15_000),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }
}
