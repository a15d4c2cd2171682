package dev.agentrt.platform.startup;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoTimeoutException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggerConfiguration;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Before any bean is made, checks that Kafka and MongoDB answer, both at once and within a bounded
 * time ({@code agentrt.startup-check.timeout}, 10 s), so that a wrong address ends start-up with
 * one clear line instead of clients retrying and logging forever. Switched off with {@code
 * agentrt.startup-check.enabled=false}.
 */
public class DependencyCheck
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {

  private static final List<String> QUIET_DURING_CHECK =
      List.of("org.apache.kafka.clients.NetworkClient", "org.mongodb.driver");

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    ConfigurableEnvironment env = context.getEnvironment();
    if (!env.getProperty("agentrt.startup-check.enabled", Boolean.class, true)) {
      return;
    }
    String kafka = env.getProperty("spring.kafka.bootstrap-servers", "localhost:9092");
    String mongo = env.getProperty("spring.mongodb.uri", "mongodb://localhost/test");
    Duration timeout =
        env.getProperty("agentrt.startup-check.timeout", Duration.class, Duration.ofSeconds(10));
    LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
    // The clients warn at every failed connection attempt; the outcome is reported once instead.
    Map<String, @Nullable LogLevel> configured = quiet(logging);
    try {
      Optional<String> problem = firstProblem(kafka, mongo, timeout);
      if (problem.isPresent()) {
        throw new DependencyUnavailableException(problem.get());
      }
    } finally {
      // Back to the levels configured before (logging.level.*), not to none.
      configured.forEach(logging::setLogLevel);
    }
  }

  /** Sets {@link #QUIET_DURING_CHECK} to errors only; the levels they had configured. */
  private static Map<String, @Nullable LogLevel> quiet(LoggingSystem logging) {
    Map<String, @Nullable LogLevel> configured = new LinkedHashMap<>(); // null: none configured
    for (String logger : QUIET_DURING_CHECK) {
      LoggerConfiguration before = logging.getLoggerConfiguration(logger);
      configured.put(logger, before == null ? null : before.getConfiguredLevel());
      logging.setLogLevel(logger, LogLevel.ERROR);
    }
    return configured;
  }

  /** Checks both at once; the first problem found, Kafka's before MongoDB's. */
  static Optional<String> firstProblem(String kafka, String mongo, Duration timeout) {
    // Threads of our own, not the common pool: they inherit this thread's class loader, which the
    // Kafka client needs to load its classes from inside an executable jar.
    try (ExecutorService checks = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Optional<String>> kafkaProblem = checks.submit(() -> kafkaProblem(kafka, timeout));
      Future<Optional<String>> mongoProblem = checks.submit(() -> mongoProblem(mongo, timeout));
      return result(kafkaProblem).or(() -> result(mongoProblem));
    }
  }

  static Optional<String> kafkaProblem(String bootstrapServers, Duration timeout) {
    int millis = (int) timeout.toMillis();
    Map<String, Object> config =
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis,
            AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
    try (Admin admin = Admin.create(config)) {
      admin.describeCluster().clusterId().get(millis, TimeUnit.MILLISECONDS);
      return Optional.empty();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      String reason =
          e instanceof java.util.concurrent.TimeoutException
                  || e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException
              ? noAnswerWithin(timeout)
              : rootMessage(e);
      return Optional.of(
          "cannot reach Kafka at " + bootstrapServers + " (KAFKA_BOOTSTRAP_SERVERS): " + reason);
    }
  }

  static Optional<String> mongoProblem(String uri, Duration timeout) {
    String where = "cannot reach MongoDB at " + redact(uri) + " (MONGODB_URI): ";
    MongoClientSettings settings;
    try {
      settings =
          MongoClientSettings.builder()
              .applyConnectionString(new ConnectionString(uri))
              .applyToClusterSettings(
                  c -> c.serverSelectionTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS))
              .applyToSocketSettings(
                  s -> s.connectTimeout((int) timeout.toMillis(), TimeUnit.MILLISECONDS))
              .build();
    } catch (RuntimeException e) {
      return Optional.of(where + "not a valid connection string: " + rootMessage(e));
    }
    try (MongoClient client = MongoClients.create(settings)) {
      client.getDatabase("admin").runCommand(new Document("ping", 1));
      return Optional.empty();
    } catch (RuntimeException e) {
      return Optional.of(
          where + (e instanceof MongoTimeoutException ? noAnswerWithin(timeout) : rootMessage(e)));
    }
  }

  /** Hides a password in a connection string. */
  static String redact(String uri) {
    return uri.replaceFirst("://([^:/@]+):[^@/]*@", "://$1:***@");
  }

  private static Optional<String> result(Future<Optional<String>> check) {
    try {
      return check.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("start-up check interrupted");
    } catch (ExecutionException e) {
      return Optional.of("start-up check failed: " + rootMessage(e));
    }
  }

  private static String noAnswerWithin(Duration timeout) {
    return "no answer within " + timeout.toMillis() / 1000.0 + " s";
  }

  /** The innermost cause's first line: what actually went wrong, without the wrapping. */
  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return message.lines().findFirst().orElse(message);
  }
}
