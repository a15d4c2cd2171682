package dev.agentrt.systemtests;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.mongodb.MongoDBContainer;

/**
 * The same walking skeleton against real Kafka and MongoDB images. Skipped where no Docker engine
 * runs (as on the project's build machines); {@link WalkingSkeletonEmbeddedIT} covers the same body
 * there.
 */
@Testcontainers(disabledWithoutDocker = true)
class WalkingSkeletonContainersIT extends WalkingSkeletonContract {

  @Container static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.1.1");

  @Container static final MongoDBContainer MONGO = new MongoDBContainer("mongo:8");

  private static RunningServices services;

  @BeforeAll
  static void startServices() {
    services =
        RunningServices.start(
            "containers",
            List.of("orchestrator", "agent-init"),
            KAFKA.getBootstrapServers(),
            MONGO.getReplicaSetUrl("agentrt"));
  }

  @AfterAll
  static void stopServices() {
    if (services != null) {
      services.close();
    }
  }

  @Override
  protected RunningServices services() {
    return services;
  }

  @Override
  protected String kafkaBootstrap() {
    return KAFKA.getBootstrapServers();
  }

  @Override
  protected String mongoUri() {
    return MONGO.getReplicaSetUrl("agentrt");
  }
}
