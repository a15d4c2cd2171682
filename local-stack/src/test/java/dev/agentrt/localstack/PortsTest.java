package dev.agentrt.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

class PortsTest {

  @Test
  void namesTheTakenPortAndWhatWantedIt() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      assertThat(Ports.inUse(port)).isTrue();

      assertThatThrownBy(
              () ->
                  Ports.requireAvailable(
                      List.of(
                          new Ports.Claim(Ports.free(), "MongoDB", "--mongo-port"),
                          new Ports.Claim(port, "Kafka", "--kafka-port"))))
          .isInstanceOf(LaunchException.class)
          .hasMessage(
              "port %d (Kafka) is already in use; stop what holds it or pass --kafka-port"
                  .formatted(port));
    }
  }

  @Test
  void acceptsFreePorts() {
    int port = Ports.free();

    assertThat(Ports.inUse(port)).isFalse();
    assertThatCode(
            () -> Ports.requireAvailable(List.of(new Ports.Claim(port, "Kafka", "--kafka-port"))))
        .doesNotThrowAnyException();
  }

  @Test
  void rejectsOnePortWantedTwice() {
    assertThatThrownBy(
            () ->
                Ports.requireAvailable(
                    List.of(
                        new Ports.Claim(8081, "Kafka", "--kafka-port"),
                        new Ports.Claim(8081, "agent-init", "--service-ports-from"))))
        .hasMessage(
            "port 8081 is wanted by both Kafka and agent-init; pass --service-ports-from to move"
                + " one of them");
  }
}
