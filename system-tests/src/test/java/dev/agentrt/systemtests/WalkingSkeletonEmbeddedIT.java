package dev.agentrt.systemtests;

import dev.agentrt.localstack.EmbeddedMongo;
import dev.agentrt.localstack.KafkaBroker;
import dev.agentrt.localstack.Services;
import dev.agentrt.localstack.TopicCreator;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The walking skeleton on the broker and Mongo server the local stack uses: a real KRaft Kafka
 * broker and mongo-java-server, all six services as separate processes.
 */
class WalkingSkeletonEmbeddedIT extends WalkingSkeletonContract {

  @TempDir static Path dataDir;

  private static KafkaBroker kafka;
  private static EmbeddedMongo mongo;
  private static RunningServices services;

  @BeforeAll
  static void startStack() {
    kafka = KafkaBroker.start(dataDir.resolve("kafka"), 0);
    mongo = EmbeddedMongo.start(null, 0);
    TopicCreator.createAll(kafka.bootstrapServers());
    services =
        RunningServices.start("embedded", Services.ALL, kafka.bootstrapServers(), mongo.uri());
  }

  @AfterAll
  static void stopStack() {
    if (services != null) {
      services.close();
    }
    if (kafka != null) {
      kafka.close();
    }
    if (mongo != null) {
      mongo.close();
    }
  }

  @Override
  protected RunningServices services() {
    return services;
  }

  @Override
  protected String kafkaBootstrap() {
    return kafka.bootstrapServers();
  }

  @Override
  protected String mongoUri() {
    return mongo.uri();
  }
}
