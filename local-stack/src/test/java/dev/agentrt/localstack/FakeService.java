package dev.agentrt.localstack;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Stands in for a service jar in {@link ServiceProcessTest}: prints its JVM options, serves {@code
 * /actuator/health} on {@code SERVER_PORT}, or with {@code FAKE_MODE=crash} exits with code 3, or
 * with {@code FAKE_MODE=silent} never answers.
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
  }
}
