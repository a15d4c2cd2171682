package dev.agentrt.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * What {@code ./run.sh} runs: Kafka, MongoDB, the topics, then the six services; prints where
 * everything is and waits for Ctrl-C. See {@link LaunchOptions#USAGE}.
 */
public final class LocalStackMain {

  private static final Duration HEALTH_TIMEOUT = Duration.ofMinutes(3);
  private static final Duration WATCH_INTERVAL = Duration.ofSeconds(2);
  private static final String LOG_FILE_PROPERTY = "localstack.log.file";
  private static final Set<String> DATA_DIR_ENTRIES = Set.of("kafka", "mongo", "logs");

  private final LaunchOptions options;
  private final StackShutdown shutdown = new StackShutdown();
  private final Path repoRoot = Path.of("").toAbsolutePath();
  private final Instant jvmStart =
      Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime());

  private LocalStackMain(LaunchOptions options) {
    this.options = options;
  }

  public static void main(String[] args) {
    LaunchOptions options;
    try {
      options = LaunchOptions.parse(List.of(args), System.getenv());
    } catch (LaunchException e) {
      System.err.println("error: " + e.getMessage() + " (see --help)");
      System.exit(e.exitCode());
      return;
    }
    if (options.help()) {
      System.out.print(LaunchOptions.USAGE);
      return;
    }
    new LocalStackMain(options).run();
  }

  private void run() {
    Runtime.getRuntime().addShutdownHook(new Thread(shutdown::run, "local-stack-shutdown"));
    try {
      List<ServiceProcess> services = start();
      watch(services);
    } catch (RuntimeException e) {
      if (!shutdown.inProgress()) {
        System.err.println("error: " + (e.getMessage() == null ? e : e.getMessage()));
        if (!(e instanceof LaunchException) && System.getProperty(LOG_FILE_PROPERTY) != null) {
          LoggerFactory.getLogger(LocalStackMain.class).error("start-up failed", e);
        }
      }
      System.exit(e instanceof LaunchException launch ? launch.exitCode() : LaunchException.FAILED);
    }
  }

  /**
   * Starts everything and prints the summary; returns the running services (none with
   * --infra-only).
   */
  private List<ServiceProcess> start() {
    if (!options.infraOnly()) {
      Services.ALL.forEach(name -> ServiceProcess.existingJar(repoRoot, name));
    }
    Ports.requireAvailable(options.portClaims());
    Path dataDir = options.dataDir();
    if (options.fresh()) {
      deleteDataDir(dataDir);
    }
    Path logs = dataDir.resolve("logs");
    logToFile(logs.resolve("kafka.log"));
    if (options.externalKafka() != null) {
      Reachability.requireKafka(options.externalKafka());
    }
    if (options.externalMongo() != null) {
      Reachability.requireMongo(options.externalMongo());
    }

    String kafka = options.externalKafka();
    if (kafka == null) {
      say(
          "starting Kafka on 127.0.0.1:%d (data in %s)",
          options.kafkaPort(), dataDir.resolve("kafka"));
      kafka =
          shutdown
              .infrastructure(KafkaBroker.start(dataDir.resolve("kafka"), options.kafkaPort()))
              .bootstrapServers();
    }
    String mongo = options.externalMongo();
    if (mongo == null) {
      say(
          "starting MongoDB on 127.0.0.1:%d (data in %s)",
          options.mongoPort(), dataDir.resolve("mongo"));
      mongo =
          shutdown
              .infrastructure(EmbeddedMongo.start(dataDir.resolve("mongo"), options.mongoPort()))
              .uri();
    }
    say("creating topics");
    TopicCreator.createAll(kafka);
    Map<String, String> env = Map.of("KAFKA_BOOTSTRAP_SERVERS", kafka, "MONGODB_URI", mongo);
    if (options.infraOnly()) {
      printInfraReady(kafka, mongo, logs);
      return List.of();
    }

    List<ServiceProcess> services = new ArrayList<>();
    if (options.jvmPerService()) {
      say("starting %s, each in a JVM of its own", String.join(", ", Services.ALL));
      for (String name : Services.ALL) {
        int port = options.servicePorts().get(name);
        services.add(
            shutdown.startService(
                () ->
                    ServiceProcess.start(repoRoot, name, port, env, logs.resolve(name + ".log"))));
      }
    } else {
      say("starting %s in one JVM", String.join(", ", Services.ALL));
      services.addAll(
          shutdown.startServices(
              () -> ServiceProcess.startInOneJvm(repoRoot, options.servicePorts(), env, logs)));
    }
    awaitAllHealthy(services);
    printReady(services, kafka, mongo, logs);
    return services;
  }

  /** Deletes the data dir, unless it holds something else than what this launcher puts there. */
  private static void deleteDataDir(Path dataDir) {
    if (!Files.exists(dataDir)) {
      return;
    }
    try (Stream<Path> entries = Files.list(dataDir)) {
      List<String> foreign =
          entries
              .map(entry -> entry.getFileName().toString())
              .filter(name -> !DATA_DIR_ENTRIES.contains(name))
              .toList();
      if (!foreign.isEmpty()) {
        throw new LaunchException(
            "--fresh will not delete %s: it holds %s besides kafka/, mongo/ and logs/"
                .formatted(dataDir, foreign));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (Stream<Path> all = Files.walk(dataDir)) {
      for (Path path : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    } catch (IOException e) {
      throw new LaunchException("cannot delete " + dataDir + ": " + e.getMessage());
    }
  }

  /** Sends all logging of this JVM to the file; must run before anything logs. */
  private static void logToFile(Path logFile) {
    try {
      Files.createDirectories(logFile.getParent());
    } catch (IOException e) {
      throw new LaunchException("cannot create " + logFile.getParent() + ": " + e.getMessage());
    }
    System.setProperty(LOG_FILE_PROPERTY, logFile.toString());
    System.setProperty("logback.configurationFile", "local-stack-logback.xml");
  }

  /** Waits for all services at once; the first failure stops the wait. */
  private static void awaitAllHealthy(List<ServiceProcess> services) {
    try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
      CompletionService<ServiceProcess> healthy = new ExecutorCompletionService<>(executor);
      for (ServiceProcess service : services) {
        healthy.submit(
            () -> {
              service.awaitHealthy(HEALTH_TIMEOUT);
              return service;
            });
      }
      for (int i = 0; i < services.size(); i++) {
        try {
          healthy.take().get();
        } catch (ExecutionException e) {
          executor.shutdownNow();
          throw new LaunchException(e.getCause().getMessage());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LaunchException("interrupted while waiting for the services");
    }
  }

  /**
   * Blocks until the JVM shuts down, reporting services that die on their own (one line for the
   * services of one JVM).
   */
  private void watch(List<ServiceProcess> services) {
    Map<Long, List<ServiceProcess>> running = new LinkedHashMap<>();
    services.forEach(s -> running.computeIfAbsent(s.pid(), pid -> new ArrayList<>()).add(s));
    Path logs = options.dataDir().resolve("logs");
    try {
      while (true) {
        Thread.sleep(WATCH_INTERVAL);
        for (List<ServiceProcess> process : List.copyOf(running.values())) {
          if (!process.getFirst().isAlive() && !shutdown.inProgress()) {
            running.remove(process.getFirst().pid());
            List<String> names = process.stream().map(ServiceProcess::name).toList();
            System.err.printf(
                "error: %s %s exited; see %s%n",
                String.join(", ", names),
                names.size() == 1 ? "has" : "have",
                names.size() == 1 ? logs.resolve(names.getFirst() + ".log") : logs);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void printReady(List<ServiceProcess> services, String kafka, String mongo, Path logs) {
    say("ready in %s", sinceStart());
    say(
        "  %-13s http://localhost:%d/api/chats  (API docs: /swagger-ui.html)",
        "chat API", services.getFirst().httpPort());
    for (ServiceProcess service : services) {
      say(
          "  %-13s http://localhost:%-5d log %s",
          service.name(), service.httpPort(), logs.resolve(service.name() + ".log"));
    }
    printInfrastructure(kafka, mongo, logs);
    say("Ctrl-C to stop");
  }

  private void printInfraReady(String kafka, String mongo, Path logs) {
    say("Kafka and MongoDB ready in %s", sinceStart());
    printInfrastructure(kafka, mongo, logs);
    say("run a service by hand with:");
    say(
        "  KAFKA_BOOTSTRAP_SERVERS=%s MONGODB_URI=%s java -jar services/<name>/target/<name>.jar",
        kafka, mongo);
    say("Ctrl-C to stop");
  }

  private void printInfrastructure(String kafka, String mongo, Path logs) {
    say(
        "  %-13s %s",
        "Kafka",
        options.externalKafka() == null
            ? kafka + "  log " + logs.resolve("kafka.log")
            : kafka + "  (KAFKA_BOOTSTRAP_SERVERS)");
    say("  %-13s %s", "MongoDB", options.externalMongo() == null ? mongo : "(MONGODB_URI)");
  }

  private String sinceStart() {
    return String.format(
        Locale.ROOT, "%.1f s", Duration.between(jvmStart, Instant.now()).toMillis() / 1000.0);
  }

  private static void say(String format, Object... args) {
    System.out.println(format.formatted(args));
  }
}
