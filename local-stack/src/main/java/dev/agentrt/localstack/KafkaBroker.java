package dev.agentrt.localstack;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * A real Apache Kafka broker in this JVM: KRaft, one node acting as broker and controller,
 * listening on 127.0.0.1. Its log directory survives restarts.
 */
public final class KafkaBroker implements AutoCloseable {

  private static final int NODE_ID = 1;
  private static final String CONTROLLER_LISTENER = "CONTROLLER";

  private final KafkaRaftServer server;
  private final Path dataDir;
  private final int port;
  private final int controllerPort;
  private boolean closed;

  private KafkaBroker(KafkaRaftServer server, Path dataDir, int port, int controllerPort) {
    this.server = server;
    this.dataDir = dataDir;
    this.port = port;
    this.controllerPort = controllerPort;
  }

  /**
   * Starts a broker and returns once it serves requests.
   *
   * @param dataDir its log directory; formatted on first use, reused (with its topics and records)
   *     afterwards
   * @param port the client port, or 0 for a free one
   */
  public static KafkaBroker start(Path dataDir, int port) {
    return start(dataDir, port == 0 ? Ports.free() : port, Ports.free());
  }

  /**
   * The same broker started again after {@link #close}: same data directory (topics, records,
   * committed offsets), same client and controller ports, so clients reconnect on their own.
   *
   * @throws IllegalStateException if this broker is still running
   */
  public synchronized KafkaBroker startAgain() {
    if (!closed) {
      throw new IllegalStateException("the broker on port " + port + " is still running");
    }
    return start(dataDir, port, controllerPort);
  }

  private static KafkaBroker start(Path dataDir, int brokerPort, int controllerPort) {
    KafkaConfig config = new KafkaConfig(config(dataDir, brokerPort, controllerPort), false);
    try {
      Files.createDirectories(dataDir);
      if (!Files.exists(dataDir.resolve("meta.properties"))) {
        format(dataDir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare Kafka data dir " + dataDir, e);
    }
    KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
    try {
      server.startup();
    } catch (RuntimeException e) {
      server.shutdown();
      server.awaitShutdown();
      throw e;
    }
    return new KafkaBroker(server, dataDir, brokerPort, controllerPort);
  }

  /** {@code 127.0.0.1:<port>}. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** Shuts the broker down and waits until it has. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      server.shutdown();
      server.awaitShutdown();
    }
  }

  private static Map<String, String> config(Path dataDir, int brokerPort, int controllerPort) {
    return Map.ofEntries(
        Map.entry("process.roles", "broker,controller"),
        Map.entry("node.id", Integer.toString(NODE_ID)),
        Map.entry("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort),
        Map.entry(
            "listeners",
            "PLAINTEXT://127.0.0.1:%d,%s://127.0.0.1:%d"
                .formatted(brokerPort, CONTROLLER_LISTENER, controllerPort)),
        Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort),
        Map.entry("controller.listener.names", CONTROLLER_LISTENER),
        Map.entry(
            "listener.security.protocol.map",
            "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT"),
        Map.entry("log.dirs", dataDir.toAbsolutePath().toString()),
        Map.entry("offsets.topic.replication.factor", "1"),
        Map.entry("offsets.topic.num.partitions", "5"),
        Map.entry("transaction.state.log.replication.factor", "1"),
        Map.entry("transaction.state.log.min.isr", "1"),
        Map.entry("share.coordinator.state.topic.replication.factor", "1"),
        Map.entry("share.coordinator.state.topic.min.isr", "1"),
        Map.entry("group.initial.rebalance.delay.ms", "0"),
        // The compaction of __consumer_offsets maps keys in a buffer allocated, zeroed and so
        // resident from the start: 128 MiB by default, two thirds of this JVM's heap at rest.
        // 2 MiB maps some 78 000 keys per pass (24 bytes each), far more than the stack's
        // consumer groups commit; a pass that fills it maps the rest next time.
        Map.entry("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024)),
        // Only the topics of the catalog exist; a typo in a topic name fails instead of creating
        // one.
        Map.entry("auto.create.topics.enable", "false"));
  }

  /** What {@code kafka-storage.sh format -t <random id>} does; the broker refuses a bare dir. */
  private static void format(Path dataDir) {
    String dir = dataDir.toAbsolutePath().toString();
    try {
      new Formatter()
          .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
          .setNodeId(NODE_ID)
          .setClusterId(Uuid.randomUuid().toString())
          .setControllerListenerName(CONTROLLER_LISTENER)
          .setMetadataLogDirectory(dir)
          .addDirectory(dir)
          .run();
    } catch (Exception e) {
      throw new IllegalStateException("cannot format Kafka data dir " + dataDir, e);
    }
  }
}
