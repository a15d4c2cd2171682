package dev.agentrt.localstack;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What {@code ./run.sh} was asked to do: its options and the two environment variables that point
 * at an external Kafka or MongoDB.
 */
record LaunchOptions(
    boolean help,
    boolean infraOnly,
    boolean fresh,
    boolean jvmPerService,
    Path dataDir,
    int kafkaPort,
    int mongoPort,
    Map<String, Integer> servicePorts,
    @Nullable String externalKafka,
    @Nullable String externalMongo) {

  static final String USAGE =
      """
      Usage: ./run.sh [options]

      Starts Kafka, MongoDB and the six services on this machine and waits; Ctrl-C stops them all.
      Data is kept between runs. Builds the jars first when they are missing or older than the sources.

      Options:
        --infra-only              only Kafka and MongoDB (and the topics); prints how to run a
                                  service by hand
        --fresh                   delete the data dir first
        --jvm-per-service         run each service in a JVM of its own, as a deployment does;
                                  by default the six share one JVM: they start in a fraction of
                                  the time and take a fraction of the memory
        --data-dir DIR            Kafka data, MongoDB data and all logs (default ./data)
        --kafka-port N            Kafka port (default 9092)
        --mongo-port N            MongoDB port (default 27017)
        --port N                  orchestrator HTTP port: UI and API (default 8080)
        --service-ports-from N    HTTP ports N..N+5 for orchestrator, agent-init, agent-loop,
                                  tool-runner, finalizer, notifier (default 8080); --port still
                                  wins for the orchestrator
        -h, --help                show this help

      ./run.sh --replay-dead-letters [--topic T] [--from-offset N] [--dry-run] starts nothing: it puts
      the dead letters of a running stack back on their original topics (--help for more).

      Environment:
        KAFKA_BOOTSTRAP_SERVERS   use this Kafka instead of starting one (--kafka-port is ignored)
        MONGODB_URI               use this MongoDB instead of starting one (--mongo-port is ignored)
      """;

  static final int DEFAULT_KAFKA_PORT = 9092;
  static final int DEFAULT_MONGO_PORT = 27017;

  /**
   * @throws LaunchException with exit code 2 for an unknown option or a bad value
   */
  static LaunchOptions parse(List<String> args, Map<String, String> env) {
    boolean help = false;
    boolean infraOnly = false;
    boolean fresh = false;
    boolean jvmPerService = false;
    Path dataDir = Path.of("data");
    int kafkaPort = DEFAULT_KAFKA_PORT;
    int mongoPort = DEFAULT_MONGO_PORT;
    Integer orchestratorPort = null;
    int firstServicePort = Services.defaultPort(Services.ALL.getFirst());
    Iterator<String> it = args.iterator();
    while (it.hasNext()) {
      String arg = it.next();
      String option = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
      String inlineValue = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : null;
      switch (option) {
        case "-h", "--help" -> help = flag(option, inlineValue);
        case "--infra-only" -> infraOnly = flag(option, inlineValue);
        case "--fresh" -> fresh = flag(option, inlineValue);
        case "--jvm-per-service" -> jvmPerService = flag(option, inlineValue);
        case "--data-dir" -> dataDir = Path.of(value(option, inlineValue, it));
        case "--kafka-port" -> kafkaPort = port(option, value(option, inlineValue, it), 0);
        case "--mongo-port" -> mongoPort = port(option, value(option, inlineValue, it), 0);
        case "--port" -> orchestratorPort = port(option, value(option, inlineValue, it), 0);
        case "--service-ports-from" ->
            firstServicePort =
                port(option, value(option, inlineValue, it), Services.ALL.size() - 1);
        default -> throw LaunchException.usage("unknown option " + arg);
      }
    }
    Map<String, Integer> servicePorts = new LinkedHashMap<>();
    for (String service : Services.ALL) {
      servicePorts.put(service, firstServicePort + Services.ALL.indexOf(service));
    }
    if (orchestratorPort != null) {
      servicePorts.put(Services.ALL.getFirst(), orchestratorPort);
    }
    return new LaunchOptions(
        help,
        infraOnly,
        fresh,
        jvmPerService,
        dataDir,
        kafkaPort,
        mongoPort,
        Collections.unmodifiableMap(servicePorts),
        nonBlank(env.get("KAFKA_BOOTSTRAP_SERVERS")),
        nonBlank(env.get("MONGODB_URI")));
  }

  /** The ports this run will listen on, each with its owner and the option that moves it. */
  List<Ports.Claim> portClaims() {
    List<Ports.Claim> claims = new ArrayList<>();
    if (externalKafka == null) {
      claims.add(new Ports.Claim(kafkaPort, "Kafka", "--kafka-port"));
    }
    if (externalMongo == null) {
      claims.add(new Ports.Claim(mongoPort, "MongoDB", "--mongo-port"));
    }
    if (!infraOnly) {
      servicePorts.forEach(
          (service, port) ->
              claims.add(
                  new Ports.Claim(
                      port,
                      service,
                      service.equals(Services.ALL.getFirst())
                          ? "--port"
                          : "--service-ports-from")));
    }
    return claims;
  }

  private static boolean flag(String option, @Nullable String inlineValue) {
    if (inlineValue != null) {
      throw LaunchException.usage(option + " takes no value");
    }
    return true;
  }

  private static String value(String option, @Nullable String inlineValue, Iterator<String> it) {
    if (inlineValue != null) {
      return inlineValue;
    }
    if (!it.hasNext()) {
      throw LaunchException.usage(option + " needs a value");
    }
    return it.next();
  }

  /** A port number such that {@code port + room} is still a port. */
  private static int port(String option, String value, int room) {
    try {
      int port = Integer.parseInt(value);
      if (port >= 1 && port + room <= 65535) {
        return port;
      }
    } catch (NumberFormatException notANumber) {
      // reported below
    }
    throw LaunchException.usage(
        "%s needs a port number from 1 to %d, not '%s'".formatted(option, 65535 - room, value));
  }

  private static @Nullable String nonBlank(@Nullable String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }
}
