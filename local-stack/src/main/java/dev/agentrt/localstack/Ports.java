package dev.agentrt.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Finding free TCP ports and checking, before anything starts, that the wanted ones are free. */
final class Ports {

  /** A port something is about to listen on, and the option that changes it. */
  record Claim(int port, String owner, String option) {}

  private Ports() {}

  /** A port nothing listens on right now (loopback). */
  static int free() {
    try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
    }
  }

  /** Whether something already listens on the port, on any local address. */
  static boolean inUse(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(port));
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /** Throws, naming the port and its owner, if two claims collide or a port is taken. */
  static void requireAvailable(List<Claim> claims) {
    Map<Integer, Claim> byPort = new HashMap<>();
    for (Claim claim : claims) {
      Claim other = byPort.putIfAbsent(claim.port(), claim);
      if (other != null) {
        throw new LaunchException(
            "port %d is wanted by both %s and %s; pass %s to move one of them"
                .formatted(claim.port(), other.owner(), claim.owner(), claim.option()));
      }
    }
    for (Claim claim : claims) {
      if (inUse(claim.port())) {
        throw new LaunchException(
            "port %d (%s) is already in use; stop what holds it or pass %s"
                .formatted(claim.port(), claim.owner(), claim.option()));
      }
    }
  }
}
