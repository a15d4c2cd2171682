package dev.agentrt.systemtests;

import dev.agentrt.localstack.Ports;
import dev.agentrt.localstack.ServiceProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The services' executable jars as child processes, on free ports, pointed at the Kafka and MongoDB
 * under test. Their logs go to {@code system-tests/target/service-logs/<label>/}.
 */
final class RunningServices implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private static final Path REPO_ROOT = Path.of(System.getProperty("agentrt.repo.root", ".."));

  private final Map<String, ServiceProcess> processes = new LinkedHashMap<>();

  static RunningServices start(
      String label, List<String> services, String kafkaBootstrap, String mongoUri) {
    return start(label, services, kafkaBootstrap, mongoUri, Map.of());
  }

  /** With more environment for every service, e.g. which model to use. */
  static RunningServices start(
      String label,
      List<String> services,
      String kafkaBootstrap,
      String mongoUri,
      Map<String, String> moreEnv) {
    Path logs = REPO_ROOT.resolve("system-tests/target/service-logs").resolve(label);
    Map<String, String> env = env(kafkaBootstrap, mongoUri, moreEnv);
    RunningServices running = new RunningServices();
    try {
      for (String service : services) {
        running.processes.put(
            service,
            ServiceProcess.start(
                REPO_ROOT, service, Ports.free(), env, logs.resolve(service + ".log")));
      }
      running.processes.values().forEach(p -> p.awaitHealthy(START_TIMEOUT));
      return running;
    } catch (RuntimeException e) {
      running.close();
      throw e;
    }
  }

  /**
   * The services in one JVM, as {@code ./run.sh} runs them by default; one cannot be killed or
   * started again without the others.
   */
  static RunningServices startInOneJvm(
      String label, List<String> services, String kafkaBootstrap, String mongoUri) {
    Path logs = REPO_ROOT.resolve("system-tests/target/service-logs").resolve(label);
    Map<String, Integer> ports = new LinkedHashMap<>();
    services.forEach(service -> ports.put(service, Ports.free()));
    RunningServices running = new RunningServices();
    try {
      ServiceProcess.startInOneJvm(REPO_ROOT, ports, env(kafkaBootstrap, mongoUri, Map.of()), logs)
          .forEach(service -> running.processes.put(service.name(), service));
      running.processes.values().forEach(p -> p.awaitHealthy(START_TIMEOUT));
      return running;
    } catch (RuntimeException e) {
      running.close();
      throw e;
    }
  }

  private static Map<String, String> env(
      String kafkaBootstrap, String mongoUri, Map<String, String> moreEnv) {
    Map<String, String> env = new HashMap<>(moreEnv);
    // Six JVMs starting at once on a small, busy machine can take longer than the default 10 s to
    // reach the broker; the check is about absent infrastructure, not slow start-up.
    env.putIfAbsent("AGENTRT_STARTUP_CHECK_TIMEOUT", "60s");
    env.put("KAFKA_BOOTSTRAP_SERVERS", kafkaBootstrap);
    env.put("MONGODB_URI", mongoUri);
    return env;
  }

  /** Where a service's log file is. */
  Path logFile(String service) {
    return processes.get(service).logFile();
  }

  /** Kills the service at once (SIGKILL), as a crash would: no shutdown hook, no last commit. */
  void kill(String service) {
    processes.get(service).kill();
  }

  /** Starts a killed service again, same port and environment; returns once it is healthy. */
  void startAgain(String service) {
    ServiceProcess again = processes.get(service).startAgain();
    processes.put(service, again);
    again.awaitHealthy(START_TIMEOUT);
  }

  String baseUrl(String service) {
    return "http://127.0.0.1:" + processes.get(service).httpPort();
  }

  boolean allAlive() {
    return processes.values().stream().allMatch(ServiceProcess::isAlive);
  }

  @Override
  public void close() {
    ServiceProcess.closeAll(processes.values());
  }
}
