package dev.agentrt.systemtests;

import dev.agentrt.localstack.EmbeddedMongo;
import dev.agentrt.localstack.KafkaBroker;
import dev.agentrt.localstack.Services;
import dev.agentrt.localstack.TopicCreator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The stack the local stack runs, started once for all system tests of this JVM: a real KRaft
 * broker and mongo-java-server in this JVM, the six services as separate processes. Stopped when
 * the JVM exits.
 */
final class EmbeddedStack {

  private static EmbeddedStack instance;

  final KafkaBroker kafka;
  final EmbeddedMongo mongo;
  final RunningServices services;

  private EmbeddedStack(KafkaBroker kafka, EmbeddedMongo mongo, RunningServices services) {
    this.kafka = kafka;
    this.mongo = mongo;
    this.services = services;
  }

  static synchronized EmbeddedStack get() {
    if (instance == null) {
      instance = start();
      Runtime.getRuntime().addShutdownHook(new Thread(instance::stop));
    }
    return instance;
  }

  /** More copies of services, on the same broker and database, for as long as the caller needs. */
  RunningServices startCopies(String label, List<String> services) {
    return RunningServices.start(label, services, kafka.bootstrapServers(), mongo.uri());
  }

  /** More copies of services, with more environment (API keys, say). */
  RunningServices startCopies(String label, List<String> services, Map<String, String> env) {
    return RunningServices.start(label, services, kafka.bootstrapServers(), mongo.uri(), env);
  }

  private static EmbeddedStack start() {
    try {
      // Under target/, not /tmp: the broker's data goes with the build it belongs to.
      Path dataDir =
          Files.createTempDirectory(
              Files.createDirectories(Path.of("target").toAbsolutePath()), "embedded-stack");
      KafkaBroker kafka = KafkaBroker.start(dataDir.resolve("kafka"), 0);
      EmbeddedMongo mongo = EmbeddedMongo.start(null, 0);
      TopicCreator.createAll(kafka.bootstrapServers());
      RunningServices services =
          RunningServices.start("embedded", Services.ALL, kafka.bootstrapServers(), mongo.uri());
      return new EmbeddedStack(kafka, mongo, services);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void stop() {
    services.close();
    kafka.close();
    mongo.close();
  }
}
