package dev.agentrt.platform.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
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

  @Test
  void putsTheClientsLogLevelsBackAsConfigured() throws IOException {
    LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
    logging.setLogLevel("org.mongodb.driver", LogLevel.WARN);
    try (GenericApplicationContext context = new GenericApplicationContext()) {
      context.getEnvironment().setConversionService(new ApplicationConversionService());
      context
          .getEnvironment()
          .getPropertySources()
          .addFirst(
              new MapPropertySource(
                  "test",
                  Map.of(
                      "spring.kafka.bootstrap-servers",
                      "127.0.0.1:" + closedPort(),
                      "agentrt.startup-check.timeout",
                      "1s")));

      assertThatThrownBy(() -> new DependencyCheck().initialize(context))
          .isInstanceOf(DependencyUnavailableException.class);

      assertThat(logging.getLoggerConfiguration("org.mongodb.driver").getConfiguredLevel())
          .isEqualTo(LogLevel.WARN);
      assertThat(
              logging
                  .getLoggerConfiguration("org.apache.kafka.clients.NetworkClient")
                  .getConfiguredLevel())
          .isNull();
    } finally {
      logging.setLogLevel("org.mongodb.driver", null);
    }
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
