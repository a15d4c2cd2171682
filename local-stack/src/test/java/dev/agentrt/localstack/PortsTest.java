package dev.agentrt.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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

  /**
   * Below the kernel's ephemeral range, so no outgoing connection takes a port before its service
   * binds it; and none handed out twice, so two services starting side by side never share one.
   */
  @Test
  void handsOutPortsBelowTheEphemeralRangeNoneTwice() {
    Set<Integer> handedOut = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      assertThat(handedOut.add(Ports.free())).isTrue();
    }
    int first = Ports.freeRange(6);
    for (int port = first; port < first + 6; port++) {
      assertThat(handedOut.add(port)).as("port %d handed out twice", port).isTrue();
      assertThat(Ports.inUse(port)).isFalse();
    }
    assertThat(handedOut).allSatisfy(port -> assertThat(port).isBetween(20_000, 31_999));
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
