package dev.agentrt.localstack;

import dev.agentrt.events.TopicCatalog;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates the topics of {@link TopicCatalog}, and only those. */
public final class TopicCreator {

  private static final short REPLICATION = 1;

  private TopicCreator() {}

  /**
   * Creates every catalog topic that does not exist yet, with the catalog's partition count and
   * replication factor 1. Existing topics are left as they are.
   */
  public static void createAll(String bootstrapServers) {
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                30_000))) {
      Set<String> existing = admin.listTopics().names().get();
      List<NewTopic> missing =
          TopicCatalog.topics().stream()
              .filter(topic -> !existing.contains(topic.name()))
              .map(topic -> new NewTopic(topic.name(), topic.partitions(), REPLICATION))
              .toList();
      for (var result : admin.createTopics(missing).values().entrySet()) {
        try {
          result.getValue().get();
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException(
                "cannot create topic " + result.getKey() + ": " + e.getCause().getMessage(), e);
          }
        }
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot list topics: " + e.getCause().getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    }
  }
}
