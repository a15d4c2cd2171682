package dev.agentrt.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LaunchOptionsTest {

  private static LaunchOptions parse(String... args) {
    return LaunchOptions.parse(List.of(args), Map.of());
  }

  @Test
  void defaults() {
    LaunchOptions options = parse();

    assertThat(options.help()).isFalse();
    assertThat(options.infraOnly()).isFalse();
    assertThat(options.fresh()).isFalse();
    assertThat(options.jvmPerService()).isFalse();
    assertThat(options.dataDir()).isEqualTo(Path.of("data"));
    assertThat(options.kafkaPort()).isEqualTo(9092);
    assertThat(options.mongoPort()).isEqualTo(27017);
    assertThat(options.servicePorts())
        .containsExactly(
            Map.entry("orchestrator", 8080),
            Map.entry("agent-init", 8081),
            Map.entry("agent-loop", 8082),
            Map.entry("tool-runner", 8083),
            Map.entry("finalizer", 8084),
            Map.entry("notifier", 8085));
    assertThat(options.externalKafka()).isNull();
    assertThat(options.externalMongo()).isNull();
  }

  @Test
  void readsEveryOption() {
    LaunchOptions options =
        parse(
            "--infra-only",
            "--fresh",
            "--jvm-per-service",
            "--data-dir",
            "/tmp/x",
            "--kafka-port=19092",
            "--mongo-port",
            "27018",
            "--service-ports-from",
            "9000",
            "--port",
            "7000",
            "--help");

    assertThat(options.help()).isTrue();
    assertThat(options.infraOnly()).isTrue();
    assertThat(options.fresh()).isTrue();
    assertThat(options.jvmPerService()).isTrue();
    assertThat(options.dataDir()).isEqualTo(Path.of("/tmp/x"));
    assertThat(options.kafkaPort()).isEqualTo(19092);
    assertThat(options.mongoPort()).isEqualTo(27018);
    assertThat(options.servicePorts().values()).containsExactly(7000, 9001, 9002, 9003, 9004, 9005);
  }

  @Test
  void usesExternalKafkaAndMongoFromTheEnvironment() {
    LaunchOptions options =
        LaunchOptions.parse(
            List.of(),
            Map.of("KAFKA_BOOTSTRAP_SERVERS", "broker:9092", "MONGODB_URI", "mongodb://db/x"));

    assertThat(options.externalKafka()).isEqualTo("broker:9092");
    assertThat(options.externalMongo()).isEqualTo("mongodb://db/x");
    assertThat(options.portClaims())
        .extracting(Ports.Claim::owner)
        .containsExactlyElementsOf(Services.ALL);
  }

  @Test
  void claimsKafkaMongoAndServicePorts() {
    assertThat(parse().portClaims())
        .extracting(Ports.Claim::port)
        .containsExactly(9092, 27017, 8080, 8081, 8082, 8083, 8084, 8085);
    assertThat(parse("--infra-only").portClaims())
        .containsExactly(
            new Ports.Claim(9092, "Kafka", "--kafka-port"),
            new Ports.Claim(27017, "MongoDB", "--mongo-port"));
  }

  @Test
  void rejectsBadInputWithExitCode2() {
    assertUsageError(List.of("--nope"), "unknown option --nope");
    assertUsageError(List.of("--port"), "--port needs a value");
    assertUsageError(
        List.of("--port", "http"), "--port needs a port number from 1 to 65535, not 'http'");
    assertUsageError(List.of("--kafka-port", "70000"), "--kafka-port needs a port number");
    assertUsageError(List.of("--service-ports-from", "65531"), "from 1 to 65530");
    assertUsageError(List.of("--fresh=yes"), "--fresh takes no value");
  }

  private static void assertUsageError(List<String> args, String message) {
    assertThatThrownBy(() -> LaunchOptions.parse(args, Map.of()))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.exitCode()).isEqualTo(2))
        .hasMessageContaining(message);
  }
}
