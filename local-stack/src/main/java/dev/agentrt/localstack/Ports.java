package dev.agentrt.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/** Finding free TCP ports and checking, before anything starts, that the wanted ones are free. */
public final class Ports {

  /** The ports {@link #free} handed out, in this JVM: none twice. */
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  /** A port something is about to listen on, and the option that changes it. */
  record Claim(int port, String owner, String option) {}

  private Ports() {}

  /**
   * A port nothing listens on, from below the kernel's ephemeral range (32768–60999 on Linux), and
   * not handed out here before. A port from {@code new ServerSocket(0)} is from that range, and
   * until its process binds it, any outgoing connection (of the services starting meanwhile, to
   * Kafka and MongoDB) may take it as its local port: the orchestrator of a system test and the
   * notifier of a benchmark once failed to start so.
   */
  public static int free() {
    for (int attempt = 0; attempt < 1_000; attempt++) {
      int port = 20_000 + ThreadLocalRandom.current().nextInt(12_000);
      if (HANDED_OUT.add(port) && !inUse(port)) {
        return port;
      }
    }
    throw new UncheckedIOException(
        new IOException("no free port between 20000 and 32000 after 1000 tries"));
  }

  /**
   * The first of {@code n} consecutive ports, each as {@link #free} hands one out (a port of the
   * range is never handed out again).
   */
  public static int freeRange(int n) {
    for (int attempt = 0; attempt < 1_000; attempt++) {
      int first = 20_000 + ThreadLocalRandom.current().nextInt(12_000 - n);
      boolean free = true;
      for (int port = first; port < first + n && free; port++) {
        free = !HANDED_OUT.contains(port) && !inUse(port);
      }
      if (free) {
        for (int port = first; port < first + n; port++) {
          HANDED_OUT.add(port);
        }
        return first;
      }
    }
    throw new UncheckedIOException(
        new IOException("no " + n + " free ports in a row between 20000 and 32000"));
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
