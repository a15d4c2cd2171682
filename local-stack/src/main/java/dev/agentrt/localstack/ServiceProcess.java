package dev.agentrt.localstack;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One service as a child process: {@code java -jar services/<name>/target/<name>.jar}, run by the
 * same java binary as this JVM, with stdout and stderr appended to a log file.
 *
 * <p>By default ({@link JvmMode#FAST_START}) the JVM gets {@code -XX:TieredStopAtLevel=1
 * -XX:+UseSerialGC}: with six services on two cores, skipping the optimising compiler halves the
 * start-up time (35 s to 19 s measured); peak speed is not what a local stack is for. It runs the
 * jar from its {@link FastStartJar extracted copy} with a class-data-sharing archive, which halves
 * it again. Its heap starts at 16 MiB and gives back what a collection frees beyond 30 %: the JVM's
 * default start, 1/64 of the machine's memory (384 MiB here), kept some 85 MiB more resident per
 * service at rest (benchmark scenario 9: the six services 2 044 → 1 536 MiB). A benchmark asks for
 * {@link JvmMode#PRODUCTION} instead.
 */
public final class ServiceProcess implements AutoCloseable {

  /** How the service's JVM is run. */
  public enum JvmMode {
    /** Quick to start, slower at peak: C1 only, Serial GC, extracted jar with a CDS archive. */
    FAST_START,
    /**
     * As the container image runs it ({@code java -jar}, see the Dockerfile): the JVM's own
     * defaults, so C2 and G1 on these machines.
     */
    PRODUCTION
  }

  /** The one service people call; it decides where it listens itself (docs/security.md). */
  private static final String ORCHESTRATOR = "orchestrator";

  /** Runs several services in one JVM (libs/platform). */
  public static final String SERVICES_HOST = "dev.agentrt.platform.host.ServicesHost";

  /** Where {@link #startInOneJvm} extracts the services' jars, together. */
  public static final String ONE_JVM_DIR = "local-stack/target/services-in-one-jvm";

  private static final List<String> FAST_START_OPTIONS = fastStartOptions();
  private static final Duration GRACE = Duration.ofSeconds(15);

  /** How long a JVM that writes its start-up cache as it exits is given to stop. */
  private static final Duration WRITING_GRACE = Duration.ofMinutes(2);

  private static final Duration POLL_INTERVAL = Duration.ofMillis(250);
  private static final int TAIL_LINES = 30;
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  /**
   * The fast-start flags; on JDK 25 and later also compact object headers (JEP 519), which take 4
   * bytes off every object: some of each service's heap and class metadata.
   */
  private static List<String> fastStartOptions() {
    List<String> options =
        new ArrayList<>(
            List.of(
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xms16m",
                "-XX:MinHeapFreeRatio=10",
                "-XX:MaxHeapFreeRatio=30"));
    if (Runtime.version().feature() >= 25) {
      options.add("-XX:+UseCompactObjectHeaders");
    }
    return List.copyOf(options);
  }

  private final String name;
  private final int httpPort;
  private final Path logFile;
  private final @Nullable ProcessBuilder builder;
  private final Process process;
  private final FastStartJar.@Nullable StartUpCache cache;

  private ServiceProcess(
      String name,
      int httpPort,
      Path logFile,
      @Nullable ProcessBuilder builder,
      Process process,
      FastStartJar.@Nullable StartUpCache cache) {
    this.name = name;
    this.httpPort = httpPort;
    this.logFile = logFile;
    this.builder = builder;
    this.process = process;
    this.cache = cache;
  }

  /**
   * Starts the service; returns at once (see {@link #awaitHealthy}).
   *
   * @param repoRoot where {@code services/} is
   * @param service one of {@link Services#ALL}
   * @param httpPort passed as {@code SERVER_PORT}
   * @param env more environment, e.g. {@code KAFKA_BOOTSTRAP_SERVERS} and {@code MONGODB_URI}
   * @param logFile stdout and stderr are appended here; parent directories are created
   */
  public static ServiceProcess start(
      Path repoRoot, String service, int httpPort, Map<String, String> env, Path logFile) {
    return start(repoRoot, service, httpPort, env, logFile, JvmMode.FAST_START, List.of());
  }

  /**
   * Starts the service with the JVM run as {@code mode} says, plus more JVM options (a heap size, a
   * flight recording); returns at once.
   */
  public static ServiceProcess start(
      Path repoRoot,
      String service,
      int httpPort,
      Map<String, String> env,
      Path logFile,
      JvmMode mode,
      List<String> jvmOptions) {
    Path jar = existingJar(repoRoot, service);
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>(List.of(java.toString()));
    if (mode == JvmMode.FAST_START) {
      command.addAll(FAST_START_OPTIONS);
      command.addAll(jvmOptions);
      // The archive lives beside the log: one per stack, never written by one JVM while another
      // of the same service maps it (that crashed JVMs: SIGSEGV in LambdaProxyClassDictionary).
      Path archive = logFile.toAbsolutePath().resolveSibling(service + ".jsa");
      command.addAll(FastStartJar.jvmArguments(jar, archive));
    } else {
      command.addAll(jvmOptions);
      command.addAll(List.of("-jar", jar.toString()));
    }
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(repoRoot.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    builder.environment().putAll(env);
    builder.environment().put("SERVER_PORT", Integer.toString(httpPort));
    if (!service.equals(ORCHESTRATOR)) {
      // Not an API: only this machine reaches it (its health and metrics).
      builder.environment().putIfAbsent("SERVER_ADDRESS", "127.0.0.1");
    }
    createDirectories(logFile.toAbsolutePath().getParent());
    return launch(service, httpPort, logFile, builder);
  }

  /**
   * Starts the services in one JVM ({@code dev.agentrt.platform.host.ServicesHost}, the JVM run as
   * {@link JvmMode#FAST_START}, from the start-up cache in {@code logs}: {@link
   * FastStartJar#startUpCache}); returns at once, one {@code ServiceProcess} per service, all of
   * them the same process: stopping one stops all. Each logs to {@code <logs>/<name>.log}; what the
   * JVM itself prints goes to {@code <logs>/services.log}.
   *
   * @param ports each service's HTTP port, in start order
   */
  public static List<ServiceProcess> startInOneJvm(
      Path repoRoot, Map<String, Integer> ports, Map<String, String> env, Path logs) {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> names = List.copyOf(ports.keySet());
    List<Path> applicationJars =
        FastStartJar.extractedTogether(
            names.stream().map(name -> existingJar(repoRoot, name)).toList(),
            repoRoot.resolve(ONE_JVM_DIR));
    List<String> command = new ArrayList<>(List.of(java.toString()));
    command.addAll(FAST_START_OPTIONS);
    FastStartJar.StartUpCache cache =
        FastStartJar.startUpCache(logs.toAbsolutePath(), "services", applicationJars);
    command.addAll(cache.arguments());
    command.add("-cp");
    command.add(
        applicationJars.stream()
            .map(Path::toString)
            .collect(Collectors.joining(File.pathSeparator)));
    command.add(SERVICES_HOST);
    command.add("--logs=" + logs.toAbsolutePath());
    boolean addressGiven =
        env.containsKey("SERVER_ADDRESS") || System.getenv("SERVER_ADDRESS") != null;
    for (int i = 0; i < names.size(); i++) {
      String service = names.get(i);
      if (i > 0) {
        command.add("--");
      }
      command.addAll(
          List.of(
              service, applicationJars.get(i).toString(), "--server.port=" + ports.get(service)));
      if (!service.equals(ORCHESTRATOR) && !addressGiven) {
        command.add("--server.address=127.0.0.1");
      }
    }
    createDirectories(logs);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(repoRoot.toFile())
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(logs.resolve("services.log").toFile()));
    builder.environment().putAll(env);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + names, e);
    }
    return names.stream()
        .map(
            name ->
                new ServiceProcess(
                    name, ports.get(name), logs.resolve(name + ".log"), null, process, cache))
        .toList();
  }

  /**
   * The same service started again, after this process has exited (e.g. after {@link #kill}): same
   * command, port, environment and log file. Returns at once (see {@link #awaitHealthy}).
   *
   * @throws IllegalStateException if this process is still running, or runs other services too
   */
  public ServiceProcess startAgain() {
    if (builder == null) {
      throw new IllegalStateException(name + " was started in one JVM with other services");
    }
    if (process.isAlive()) {
      throw new IllegalStateException(name + " is still running; kill or close it first");
    }
    return launch(name, httpPort, logFile, builder);
  }

  private static void createDirectories(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the log directory " + dir, e);
    }
  }

  private static ServiceProcess launch(
      String service, int httpPort, Path logFile, ProcessBuilder builder) {
    try {
      return new ServiceProcess(service, httpPort, logFile, builder, builder.start(), null);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + service, e);
    }
  }

  /**
   * @throws IllegalStateException saying how to build the jar if it is missing
   */
  static Path existingJar(Path repoRoot, String service) {
    Path jar = Services.jar(repoRoot, service);
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          repoRoot.relativize(jar) + " is missing; build with ./mvnw -DskipTests package");
    }
    return jar;
  }

  /**
   * Polls {@code http://127.0.0.1:<port>/actuator/health} until it reports UP.
   *
   * @throws IllegalStateException if the process exits or the time runs out first; the message ends
   *     with the last lines of the log
   */
  public void awaitHealthy(Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    HttpRequest health =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/actuator/health"))
            .timeout(Duration.ofSeconds(2))
            .build();
    try {
      while (process.isAlive() && Instant.now().isBefore(deadline)) {
        if (isUp(health)) {
          return;
        }
        Thread.sleep(POLL_INTERVAL);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + name, e);
    }
    String what =
        process.isAlive()
            ? "did not become healthy within " + timeout.toSeconds() + " s"
            : "exited with code " + process.exitValue() + " before becoming healthy";
    throw new IllegalStateException(
        "%s %s; last lines of %s:%n%s".formatted(name, what, logFile, String.join("\n", tail())));
  }

  public int httpPort() {
    return httpPort;
  }

  public String name() {
    return name;
  }

  /** Where the service's log lines go. */
  public Path logFile() {
    return logFile;
  }

  /** The operating system's id of the process (its {@code /proc/<pid>}). */
  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Kills the process and its descendants at once (SIGKILL) and waits for it to exit. */
  public void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    process.onExit().join();
  }

  /**
   * Closes the services all at once (each as {@link #close}), so that stopping several takes as
   * long as the slowest, not their sum: a test JVM's shutdown hook has only so long before the
   * build kills it and leaves the rest running.
   */
  public static void closeAll(Collection<ServiceProcess> services) {
    try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
      services.forEach(service -> executor.submit(service::close));
    }
  }

  /**
   * Whether the JVM writes its start-up cache as it exits ({@link FastStartJar#startUpCache}), so
   * that {@link #close} takes a while.
   */
  public boolean writesStartUpCache() {
    return cache != null && cache.writtenAtExit();
  }

  /**
   * Asks the process to stop (SIGTERM); kills it if it has not exited after 15 s, or 2 min when it
   * writes its start-up cache as it exits (kept for the next start only when it exited by itself).
   */
  @Override
  public void close() {
    process.destroy();
    try {
      Duration grace = writesStartUpCache() ? WRITING_GRACE : GRACE;
      if (process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        if (cache != null) {
          cache.keep();
        }
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    kill();
  }

  private boolean isUp(HttpRequest health) throws InterruptedException {
    try {
      HttpResponse<String> response = HTTP.send(health, HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 && response.body().contains("\"status\":\"UP\"");
    } catch (IOException notListeningYet) {
      return false;
    }
  }

  private List<String> tail() {
    try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "r")) {
      long start = Math.max(0, file.length() - 16 * 1024);
      byte[] bytes = new byte[(int) (file.length() - start)];
      file.seek(start);
      file.readFully(bytes);
      List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
      return lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size());
    } catch (IOException e) {
      return List.of("(cannot read " + logFile + ": " + e.getMessage() + ")");
    }
  }
}
