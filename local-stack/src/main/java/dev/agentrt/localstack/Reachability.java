package dev.agentrt.localstack;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import org.bson.Document;

/** Checks, with short timeouts, that an external Kafka or MongoDB answers. */
final class Reachability {

  private static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration MONGO_TIMEOUT = Duration.ofSeconds(5);

  private Reachability() {}

  /**
   * @throws LaunchException unless the cluster describes itself within 10 s
   */
  static void requireKafka(String bootstrapServers) {
    int timeoutMs = (int) KAFKA_TIMEOUT.toMillis();
    Admin admin = null;
    try {
      admin =
          Admin.create(
              Map.of(
                  AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                  AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs,
                  AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs));
      admin.describeCluster().clusterId().get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw unreachableKafka(bootstrapServers, e.getCause().getMessage());
    } catch (TimeoutException e) {
      throw unreachableKafka(
          bootstrapServers, "no answer within " + KAFKA_TIMEOUT.toSeconds() + " s");
    } catch (KafkaException e) {
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      throw unreachableKafka(bootstrapServers, root.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LaunchException("interrupted while checking Kafka");
    } finally {
      if (admin != null) {
        admin.close(Duration.ZERO);
      }
    }
  }

  /**
   * @throws LaunchException unless the server answers a ping within 5 s
   */
  static void requireMongo(String uri) {
    ConnectionString connection;
    try {
      connection = new ConnectionString(uri);
    } catch (IllegalArgumentException e) {
      throw new LaunchException(
          "MONGODB_URI is not a MongoDB connection string: " + e.getMessage());
    }
    MongoClientSettings settings =
        MongoClientSettings.builder()
            .applyConnectionString(connection)
            .applyToClusterSettings(
                cluster ->
                    cluster.serverSelectionTimeout(MONGO_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
            .build();
    try (MongoClient client = MongoClients.create(settings)) {
      client.getDatabase("admin").runCommand(new Document("ping", 1));
    } catch (MongoTimeoutException e) {
      throw unreachableMongo(connection, "no answer within " + MONGO_TIMEOUT.toSeconds() + " s");
    } catch (MongoException e) {
      throw unreachableMongo(connection, e.getMessage());
    }
  }

  private static LaunchException unreachableKafka(String bootstrapServers, String why) {
    return new LaunchException(
        "cannot reach Kafka at %s (KAFKA_BOOTSTRAP_SERVERS): %s".formatted(bootstrapServers, why));
  }

  /** Names the hosts only: the URI may carry a password. */
  private static LaunchException unreachableMongo(ConnectionString connection, String why) {
    return new LaunchException(
        "cannot reach MongoDB at %s (MONGODB_URI): %s"
            .formatted(String.join(",", connection.getHosts()), why));
  }
}
