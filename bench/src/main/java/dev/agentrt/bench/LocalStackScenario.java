package dev.agentrt.bench;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.agentrt.bench.ScenarioResult.Target;
import dev.agentrt.localstack.Ports;
import dev.agentrt.localstack.ServiceProcess;
import dev.agentrt.localstack.Services;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Scenario 9: the local stack as a person runs it, {@code ./run.sh} with its defaults (the offline
 * model, the H2-file MongoDB server, the launcher's fast-start flags) on free ports and a data dir
 * of its own. Run before the benchmark's own stack starts, so nothing else uses the cores: the
 * first start after a build (the extracted jars and the start-up caches removed, as a build leaves
 * them), resident memory at rest and after {@link #RUNS} research runs, then later starts. Ready is
 * the time {@code ./run.sh} prints ({@code ready in …}), from its JVM's start to every service
 * healthy.
 */
final class LocalStackScenario {

  /** Research runs between the two memory readings. */
  static final int RUNS = 200;

  /** Research runs posted at once. */
  private static final int AT_ONCE = 20;

  private static final Pattern READY = Pattern.compile("^ready in ([0-9.]+) s");
  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
  private static final Duration RUNS_TIMEOUT = Duration.ofMinutes(5);

  /** How long the stack idles before its memory is read "at rest". */
  private static final Duration SETTLE = Duration.ofSeconds(10);

  private static final String LAUNCHER = "local-stack/target/local-stack.jar";

  /** How the launcher's AOT caches are named, which ./run.sh writes on JDK 25 and later. */
  private static final String LAUNCHER_CACHES = "launcher-jdk-";

  private static final List<String> SERVICES = Services.ALL;

  private final Path repoRoot;
  private final Path work;
  private final int laterStarts;
  private final Consumer<String> say;

  LocalStackScenario(Path repoRoot, Path work, int laterStarts, Consumer<String> say) {
    this.repoRoot = repoRoot;
    this.work = work;
    this.laterStarts = laterStarts;
    this.say = say;
  }

  ScenarioResult run() {
    ScenarioResult result = new ScenarioResult("9-local-stack", "9 local stack (./run.sh)");
    result.parameters.put("command", "./run.sh --data-dir … --kafka-port … --mongo-port … ports");
    result.parameters.put("runs", RUNS);
    result.parameters.put("runsAtOnce", AT_ONCE);
    result.parameters.put("run", "\"Research …\": the offline model's researcher, tool rounds");
    result.parameters.put(
        "atRest", "every service healthy, then " + SETTLE.toSeconds() + " s idle");
    if (needsBuild()) {
      result.skipped =
          "./run.sh would build first (a source is newer than its jars), and the build would"
              + " replace this benchmark's own jar: run ./mvnw -DskipTests package, then again";
      say.accept("  skipped: " + result.skipped);
      return result;
    }
    Path dataDir = work.resolve("local-stack-data");
    removeFastStart();
    double first;
    double atRest;
    double afterRuns;
    double runsSeconds;
    try (Launched stack = Launched.start(repoRoot, dataDir, true)) {
      first = stack.readySeconds;
      say.accept("  first start after a build: ready in %.1f s".formatted(first));
      Batch.sleep(SETTLE);
      Map<String, Double> rest = stack.rssMiB();
      atRest = sum(rest);
      long started = System.nanoTime();
      stack.research(RUNS);
      runsSeconds = (System.nanoTime() - started) / 1e9;
      Batch.sleep(SETTLE);
      Map<String, Double> after = stack.rssMiB();
      afterRuns = sum(after);
      result.details.put("rssMiBAtRest", rest);
      result.details.put("rssMiBAfterRuns", after);
      say.accept("  resident at rest, MiB: " + rounded(rest));
      say.accept(
          "  resident: %.0f MiB at rest, %.0f MiB after %d runs (%.1f s)"
              .formatted(atRest, afterRuns, RUNS, runsSeconds));
    }
    List<Double> later = new ArrayList<>();
    for (int i = 0; i < laterStarts; i++) {
      try (Launched stack = Launched.start(repoRoot, dataDir, false)) {
        later.add(stack.readySeconds);
        say.accept("  later start: ready in %.1f s".formatted(stack.readySeconds));
      }
    }
    return result
        .row(
            "./run.sh ready, first start after a build",
            "s",
            List.of(first),
            Target.atMost(20, "s"))
        .row("./run.sh ready, later starts", "s", later, Target.atMost(10, "s"))
        .row("resident, whole stack at rest", "MiB", List.of(atRest), Target.atMost(1536, "MiB"))
        .row(
            "resident, whole stack after " + RUNS + " runs",
            "MiB",
            List.of(afterRuns),
            Target.atMost(2048, "MiB"))
        .row(RUNS + " research runs, " + AT_ONCE + " at a time", "s", List.of(runsSeconds));
  }

  private static double sum(Map<String, Double> rss) {
    return rss.values().stream().mapToDouble(Double::doubleValue).sum();
  }

  private static Map<String, Long> rounded(Map<String, Double> rss) {
    Map<String, Long> rounded = new LinkedHashMap<>();
    rss.forEach((name, mib) -> rounded.put(name, Math.round(mib)));
    return rounded;
  }

  /** Whether {@code ./run.sh} would build before it starts (its own check, scripts/needs-build). */
  private boolean needsBuild() {
    List<String> command = new ArrayList<>(List.of("scripts/needs-build", LAUNCHER));
    SERVICES.forEach(s -> command.add("services/" + s + "/target/" + s + ".jar"));
    try {
      Process check = new ProcessBuilder(command).directory(repoRoot.toFile()).inheritIO().start();
      return check.waitFor() == 0;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run scripts/needs-build", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * As a build leaves the stack: no extracted jar, no launcher's start-up cache yet (the services'
   * are in the data dir, which the first start makes afresh).
   */
  private void removeFastStart() {
    for (String service : SERVICES) {
      BenchMain.deleteTree(
          repoRoot.resolve("services").resolve(service).resolve("target/fast-start"));
    }
    BenchMain.deleteTree(repoRoot.resolve(ServiceProcess.ONE_JVM_DIR));
    try (Stream<Path> files = Files.list(repoRoot.resolve("local-stack/target"))) {
      files
          .filter(file -> file.getFileName().toString().startsWith(LAUNCHER_CACHES))
          .forEach(BenchMain::deleteTree);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot look for the launcher's start-up cache", e);
    }
  }

  /** A {@code ./run.sh} started and ready; closing it stops it as Ctrl-C would. */
  private static final class Launched implements AutoCloseable {

    private final Process process;
    private final double readySeconds;
    private final int orchestratorPort;
    private final int mongoPort;

    private Launched(Process process, double readySeconds, int orchestratorPort, int mongoPort) {
      this.process = process;
      this.readySeconds = readySeconds;
      this.orchestratorPort = orchestratorPort;
      this.mongoPort = mongoPort;
    }

    static Launched start(Path repoRoot, Path dataDir, boolean fresh) {
      int kafkaPort = Ports.free();
      int mongoPort = Ports.free();
      int servicePorts = Ports.freeRange(SERVICES.size());
      List<String> command = new ArrayList<>();
      command.add(repoRoot.resolve("run.sh").toString());
      if (fresh) {
        command.add("--fresh");
      }
      command.addAll(
          List.of(
              "--data-dir",
              dataDir.toString(),
              "--kafka-port",
              Integer.toString(kafkaPort),
              "--mongo-port",
              Integer.toString(mongoPort),
              "--service-ports-from",
              Integer.toString(servicePorts)));
      ProcessBuilder builder = new ProcessBuilder(command).directory(repoRoot.toFile());
      // The defaults a person gets: none of this shell's settings for the product.
      builder
          .environment()
          .keySet()
          .removeIf(
              name ->
                  name.startsWith("AGENTRT_")
                      || name.equals("KAFKA_BOOTSTRAP_SERVERS")
                      || name.equals("MONGODB_URI"));
      builder.redirectErrorStream(true);
      Process process;
      try {
        process = builder.start();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start ./run.sh", e);
      }
      CompletableFuture<Double> ready = new CompletableFuture<>();
      List<String> output = Collections.synchronizedList(new ArrayList<>());
      Thread.ofVirtual()
          .start(
              () -> {
                try (BufferedReader lines =
                    new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = lines.readLine()) != null) {
                    output.add(line);
                    Matcher matcher = READY.matcher(line);
                    if (matcher.find()) {
                      ready.complete(Double.parseDouble(matcher.group(1)));
                    }
                  }
                } catch (IOException e) {
                  // the stack stopped: the wait below says so
                }
                ready.completeExceptionally(
                    new IllegalStateException("./run.sh ended before it was ready: " + output));
              });
      try {
        double seconds = ready.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        return new Launched(process, seconds, servicePorts, mongoPort);
      } catch (Exception e) {
        stop(process);
        throw new IllegalStateException(
            "./run.sh was not ready within " + START_TIMEOUT.toSeconds() + " s: " + output, e);
      }
    }

    /**
     * The resident memory (MiB) of the launcher (Kafka and MongoDB run in it) and of each service
     * it started, by name.
     */
    Map<String, Double> rssMiB() {
      Map<String, Double> rss = new LinkedHashMap<>();
      List<ProcessHandle> stack = new ArrayList<>(List.of(process.toHandle()));
      stack.addAll(process.descendants().toList());
      for (ProcessHandle part : stack) {
        String command = part.info().commandLine().orElse("");
        String name =
            command.contains(LAUNCHER)
                ? "launcher (Kafka + MongoDB)"
                : command.contains(ServiceProcess.SERVICES_HOST)
                    ? "six services (one JVM)"
                    : SERVICES.stream()
                        .filter(s -> command.contains("/" + s + ".jsa"))
                        .findFirst()
                        // ./run.sh itself and its output's filters (no JVM), when it waits for a
                        // launcher that writes its start-up cache
                        .orElse(
                            part.info().command().orElse("").endsWith("/java")
                                ? "pid " + part.pid()
                                : "./run.sh");
        rss.merge(name, Proc.rssMiB(part.pid()), Double::sum);
      }
      return rss;
    }

    /**
     * Posts {@code runs} research messages, {@link #AT_ONCE} chats at a time, each batch waited for
     * until every chat has its task's answer.
     */
    void research(int runs) {
      ChatDriver driver = new ChatDriver("http://127.0.0.1:" + orchestratorPort);
      try (MongoClient mongo = MongoClients.create("mongodb://127.0.0.1:" + mongoPort)) {
        long deadline = System.nanoTime() + RUNS_TIMEOUT.toNanos();
        for (int done = 0; done < runs; done += AT_ONCE) {
          int n = Math.min(AT_ONCE, runs - done);
          List<String> chats = driver.createChats(n);
          List<String> messages = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            messages.add("Research durable execution, take " + (done + i));
          }
          driver.post(chats, messages);
          while (Batch.count(
                  mongo.getDatabase("agentrt").getCollection("chat_messages"),
                  Batch.answersIn(chats))
              < n) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException(
                  "%d research runs not answered within %d s"
                      .formatted(runs, RUNS_TIMEOUT.toSeconds()));
            }
            Batch.sleep(Duration.ofMillis(100));
          }
        }
      }
    }

    @Override
    public void close() {
      stop(process);
    }

    /**
     * SIGTERM, as Ctrl-C; whatever is left after two minutes is killed (the first stop after a
     * build writes the start-up caches: some 45 s).
     */
    private static void stop(Process process) {
      List<ProcessHandle> started = process.descendants().toList();
      process.destroy();
      try {
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      started.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }
  }
}
