package dev.agentrt.localstack;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchService;
import java.util.stream.Stream;

/**
 * Stands in for a service jar in {@link ServiceProcessTest}: prints its JVM options, serves {@code
 * /actuator/health} on {@code SERVER_PORT}, or with {@code FAKE_MODE=crash} exits with code 3, or
 * with {@code FAKE_MODE=silent} never answers. With {@code FAKE_STOP_BARRIER} (a directory) and
 * {@code FAKE_STOP_PARTIES}, asked to stop it leaves a file there and exits only once that many
 * have (printing {@code released}): a barrier across processes, which only services asked to stop
 * at the same time can pass.
 */
public final class FakeService {

  public static void main(String[] args) throws IOException {
    System.out.println("fake service starting");
    System.out.println(
        "jvm options: "
            + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
    String mode = System.getenv().getOrDefault("FAKE_MODE", "healthy");
    if (mode.equals("crash")) {
      System.err.println("APPLICATION FAILED TO START");
      System.exit(3);
    }
    HttpServer server =
        HttpServer.create(
            new InetSocketAddress("127.0.0.1", Integer.parseInt(System.getenv("SERVER_PORT"))), 0);
    if (mode.equals("healthy")) {
      server.createContext(
          "/actuator/health",
          exchange -> {
            byte[] body = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
          });
    }
    server.start();
    String barrier = System.getenv("FAKE_STOP_BARRIER");
    if (barrier != null) {
      int parties = Integer.parseInt(System.getenv("FAKE_STOP_PARTIES"));
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> awaitOthers(Path.of(barrier), parties)));
    }
  }

  private static void awaitOthers(Path barrier, int parties) {
    try (WatchService arrivals = barrier.getFileSystem().newWatchService()) {
      barrier.register(arrivals, StandardWatchEventKinds.ENTRY_CREATE);
      Files.createFile(barrier.resolve(Long.toString(ProcessHandle.current().pid())));
      while (arrived(barrier) < parties) {
        arrivals.take().reset(); // another one arrived: count again
      }
      System.out.println("released");
    } catch (IOException | InterruptedException e) {
      System.out.println("barrier failed: " + e);
    }
  }

  private static long arrived(Path barrier) throws IOException {
    try (Stream<Path> files = Files.list(barrier)) {
      return files.count();
    }
  }
}
