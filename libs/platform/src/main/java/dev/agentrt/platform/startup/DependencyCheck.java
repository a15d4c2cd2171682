package dev.agentrt.platform.startup;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.bson.Document;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Before any bean is made, checks that Kafka and MongoDB answer, both at once and within a bounded
 * time, so that a wrong address ends start-up with one clear line instead of clients retrying and
 * logging forever. Switched off with {@code agentrt.startup-check.enabled=false}.
 */
public class DependencyCheck
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {

  static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    ConfigurableEnvironment env = context.getEnvironment();
    if (!env.getProperty("agentrt.startup-check.enabled", Boolean.class, true)) {
      return;
    }
    String kafka = env.getProperty("spring.kafka.bootstrap-servers", "localhost:9092");
    String mongo = env.getProperty("spring.mongodb.uri", "mongodb://localhost/test");
    CompletableFuture<Optional<String>> kafkaProblem =
        CompletableFuture.supplyAsync(() -> kafkaProblem(kafka));
    CompletableFuture<Optional<String>> mongoProblem =
        CompletableFuture.supplyAsync(() -> mongoProblem(mongo));
    Optional<String> problem = kafkaProblem.join().or(mongoProblem::join);
    if (problem.isPresent()) {
      throw new DependencyUnavailableException(problem.get());
    }
  }

  static Optional<String> kafkaProblem(String bootstrapServers) {
    Map<String, Object> config =
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            (int) TIMEOUT.toMillis(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            (int) TIMEOUT.toMillis(),
            AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG,
            1000);
    try (Admin admin = Admin.create(config)) {
      admin.describeCluster().clusterId().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return Optional.empty();
    } catch (TimeoutException e) {
      return Optional.of(kafkaMessage(bootstrapServers, "no answer within " + seconds()));
    } catch (ExecutionException e) {
      return Optional.of(kafkaMessage(bootstrapServers, rootMessage(e)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of(kafkaMessage(bootstrapServers, "interrupted"));
    } catch (RuntimeException e) {
      return Optional.of(kafkaMessage(bootstrapServers, rootMessage(e)));
    }
  }

  static Optional<String> mongoProblem(String uri) {
    MongoClientSettings settings;
    try {
      settings =
          MongoClientSettings.builder()
              .applyConnectionString(new ConnectionString(uri))
              .applyToClusterSettings(
                  c -> c.serverSelectionTimeout(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
              .applyToSocketSettings(
                  s -> s.connectTimeout((int) TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
              .build();
    } catch (RuntimeException e) {
      return Optional.of(mongoMessage(uri, "not a valid connection string: " + e.getMessage()));
    }
    try (MongoClient client = MongoClients.create(settings)) {
      client.getDatabase("admin").runCommand(new Document("ping", 1));
      return Optional.empty();
    } catch (RuntimeException e) {
      String reason =
          e instanceof com.mongodb.MongoTimeoutException
              ? "no answer within " + seconds()
              : rootMessage(e);
      return Optional.of(mongoMessage(uri, reason));
    }
  }

  private static String kafkaMessage(String servers, String reason) {
    return "cannot reach Kafka at " + servers + " (KAFKA_BOOTSTRAP_SERVERS): " + reason;
  }

  private static String mongoMessage(String uri, String reason) {
    return "cannot reach MongoDB at " + redact(uri) + " (MONGODB_URI): " + reason;
  }

  /** Hides a password in the URI. */
  static String redact(String uri) {
    return uri.replaceFirst("://([^:/@]+):[^@/]*@", "://$1:***@");
  }

  private static String seconds() {
    return TIMEOUT.toSeconds() + " s";
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while ((t instanceof ExecutionException || t instanceof CompletionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return message.lines().findFirst().orElse(message);
  }
}
