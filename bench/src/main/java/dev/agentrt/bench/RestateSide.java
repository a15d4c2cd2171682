package dev.agentrt.bench;

import dev.agentrt.localstack.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Restate beside us (scenario 7): its server, the npm package {@code @restatedev/restate-server} (a
 * native binary), and the bench's tool loop written with Restate's TypeScript SDK ({@code
 * bench/restate/agent.mjs}) served by Node.js, both as processes of their own, the loop pointed at
 * the bench's fake model. {@link #install} puts them in {@code bench/restate/node_modules} with
 * {@code npm ci} when they are missing, as CI installs Chromium for the browser test.
 */
final class RestateSide implements AutoCloseable {

  static final Path DIR = Path.of("bench", "restate");
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);
  private static final Path INSTALL_LOG = Path.of("bench", "target", "restate-npm-ci.log");

  private final Process server;
  private final Process service;
  private final String ingress;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private RestateSide(Process server, Process service, String ingress) {
    this.server = server;
    this.service = service;
    this.ingress = ingress;
  }

  /**
   * Makes sure Node.js, the SDK and the server binary are there, running {@code npm ci} when they
   * are not.
   *
   * @return why Restate cannot run here, or empty when it can
   */
  static Optional<String> install(Consumer<String> say) {
    Optional<String> node = version("node");
    if (node.isEmpty()) {
      return Optional.of("no Node.js (node) on the PATH; Restate's SDK needs Node.js 20 or later");
    }
    if (Integer.parseInt(node.get().replaceAll("^v(\\d+).*", "$1")) < 20) {
      return Optional.of("Node.js " + node.get() + " is too old; Restate's SDK needs 20 or later");
    }
    if (serverBinary().isEmpty()
        || !Files.isDirectory(DIR.resolve("node_modules/@restatedev/restate-sdk"))) {
      say.accept("  installing Restate (npm ci in " + DIR + ")");
      try {
        Process npm =
            new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund")
                .directory(DIR.toFile())
                .redirectErrorStream(true)
                .redirectOutput(INSTALL_LOG.toFile())
                .start();
        if (!npm.waitFor(INSTALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || npm.exitValue() != 0) {
          npm.destroyForcibly();
          return Optional.of("npm ci in " + DIR + " failed; see " + INSTALL_LOG);
        }
      } catch (IOException e) {
        return Optional.of("npm could not run: " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.of("interrupted while installing");
      }
    }
    return serverBinary().isPresent()
        ? Optional.empty()
        : Optional.of(
            "no restate-server binary for this platform in "
                + DIR.resolve("node_modules/@restatedev"));
  }

  /**
   * Starts the server (its data in {@code work/restate}, logs in {@code work/logs}) and the loop's
   * service, registers the service with the server and returns once both answer.
   *
   * @param modelBaseUrl the fake model, {@code http://127.0.0.1:<port>/v1}
   */
  static RestateSide start(Path work, String modelBaseUrl) {
    Path logs = work.resolve("logs");
    try {
      Files.createDirectories(logs);
      int ingressPort = Ports.free(), adminPort = Ports.free();
      int nodePort = Ports.free(), servicePort = Ports.free();
      ProcessBuilder serverBuilder =
          new ProcessBuilder(
                  serverBinary().orElseThrow().toString(),
                  "--no-logo",
                  "--node-name",
                  "bench",
                  "--base-dir",
                  work.resolve("restate").toAbsolutePath().toString())
              .redirectErrorStream(true)
              .redirectOutput(logs.resolve("restate-server.log").toFile());
      Map<String, String> env = serverBuilder.environment();
      env.put("RESTATE_INGRESS__BIND_ADDRESS", "127.0.0.1:" + ingressPort);
      env.put("RESTATE_ADMIN__BIND_ADDRESS", "127.0.0.1:" + adminPort);
      env.put("RESTATE_BIND_ADDRESS", "127.0.0.1:" + nodePort);
      env.put("RESTATE_LISTEN_MODE", "tcp");
      // Warnings and errors only, on both processes: an INFO line per invocation is not work.
      env.put("RESTATE_LOG_FILTER", "warn");
      Process server = serverBuilder.start();
      ProcessBuilder serviceBuilder =
          new ProcessBuilder("node", "agent.mjs")
              .directory(DIR.toFile())
              .redirectErrorStream(true)
              .redirectOutput(logs.resolve("restate-agent.log").toFile());
      serviceBuilder.environment().put("MODEL_URL", modelBaseUrl);
      serviceBuilder.environment().put("PORT", Integer.toString(servicePort));
      serviceBuilder.environment().put("RESTATE_LOGGING", "WARN");
      Process service = serviceBuilder.start();
      RestateSide side = new RestateSide(server, service, "http://127.0.0.1:" + ingressPort);
      side.register("http://127.0.0.1:" + adminPort, "http://127.0.0.1:" + servicePort);
      return side;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The server's and the service's process ids. */
  Map<String, Long> pids() {
    Map<String, Long> pids = new LinkedHashMap<>();
    pids.put("restate-server", server.pid());
    pids.put("restate service (Node.js)", service.pid());
    return pids;
  }

  /**
   * Runs every script as one invocation of {@code agent/run}, all at once, and returns when all
   * have answered.
   *
   * @throws IllegalStateException if one failed or time ran out
   */
  void run(List<Script> scripts, Duration timeout) {
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (Script script : scripts) {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(ingress + "/agent/run"))
              .timeout(timeout)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(quoted(script.instruction())))
              .build();
      calls.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
    }
    for (int i = 0; i < calls.size(); i++) {
      HttpResponse<String> response = calls.get(i).join();
      if (response.statusCode() != 200 || !response.body().contains(FakeOpenAi.FINAL_ANSWER)) {
        throw new IllegalStateException(
            "Restate invocation %s: %d %s"
                .formatted(scripts.get(i).id(), response.statusCode(), response.body()));
      }
    }
  }

  /** Registers the service's deployment with the admin API, waiting for both to be up. */
  private void register(String admin, String serviceUrl) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      if (!server.isAlive() || !service.isAlive()) {
        throw new IllegalStateException("Restate stopped at start; see the logs restate-*.log");
      }
      try {
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(URI.create(admin + "/deployments"))
                    .timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"uri\":\"" + serviceUrl + "\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 == 2) {
          return;
        }
        last = response.statusCode() + " " + response.body();
      } catch (ConnectException e) {
        last = "admin API not listening yet";
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      Batch.sleep(Duration.ofMillis(250));
    }
    throw new IllegalStateException("Restate was not ready in time: " + last);
  }

  private static Optional<Path> serverBinary() {
    Path scope = DIR.resolve("node_modules/@restatedev");
    if (!Files.isDirectory(scope)) {
      return Optional.empty();
    }
    try (Stream<Path> packages = Files.list(scope)) {
      return packages
          .filter(p -> p.getFileName().toString().startsWith("restate-server-"))
          .map(p -> p.resolve("bin/restate-server"))
          .filter(Files::isExecutable)
          .findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static Optional<String> version(String command) {
    try {
      Process p = new ProcessBuilder(command, "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).strip();
      return p.waitFor() == 0 ? Optional.of(out) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** The instruction as a JSON string (it holds letters, digits, spaces, '=' and '-' only). */
  private static String quoted(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  @Override
  public void close() {
    for (Process p : List.of(service, server)) {
      p.destroy();
    }
    for (Process p : List.of(service, server)) {
      try {
        if (!p.waitFor(15, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
  }
}
