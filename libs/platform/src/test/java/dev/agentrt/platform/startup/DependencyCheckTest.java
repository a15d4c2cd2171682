package dev.agentrt.platform.startup;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

class DependencyCheckTest {

  private static final Duration SHORT = Duration.ofSeconds(2);

  @Test
  void namesTheUnreachableKafkaAndTheVariableToFix() throws IOException {
    String nowhere = "127.0.0.1:" + closedPort();

    assertThat(DependencyCheck.kafkaProblem(nowhere, SHORT))
        .hasValue(
            "cannot reach Kafka at "
                + nowhere
                + " (KAFKA_BOOTSTRAP_SERVERS): no answer within 2.0 s");
  }

  @Test
  void namesTheUnreachableMongoDbAndHidesItsPassword() throws IOException {
    String nowhere = "mongodb://app:secret@127.0.0.1:" + closedPort() + "/agentrt";

    assertThat(DependencyCheck.mongoProblem(nowhere, SHORT))
        .get()
        .asString()
        .startsWith("cannot reach MongoDB at mongodb://app:***@127.0.0.1:")
        .contains("(MONGODB_URI): no answer within 2.0 s")
        .doesNotContain("secret");
  }

  @Test
  void saysWhenTheMongoUriIsNotAConnectionString() {
    assertThat(DependencyCheck.mongoProblem("localhost:27017", SHORT))
        .get()
        .asString()
        .contains("not a valid connection string");
  }

  @Test
  void findsNothingWrongWhenBothAnswer() {
    EmbeddedKafkaKraftBroker kafka = new EmbeddedKafkaKraftBroker(1, 1);
    MongoServer mongo = new MongoServer(new MemoryBackend());
    try {
      kafka.afterPropertiesSet();
      String mongoUri = "mongodb://127.0.0.1:" + mongo.bind().getPort() + "/agentrt";

      assertThat(DependencyCheck.firstProblem(kafka.getBrokersAsString(), mongoUri, SHORT))
          .isEmpty();
    } finally {
      kafka.destroy();
      mongo.shutdownNow();
    }
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
