package dev.agentrt.testing;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;

/** What the broker knows of a consumer group: who is in it and what they read. */
public final class ConsumerGroups {

  private ConsumerGroups() {}

  /** Whether a member of the group has partitions assigned: its consumer is reading. */
  public static boolean isReading(String bootstrapServers, String group)
      throws InterruptedException, ExecutionException, TimeoutException {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers))) {
      ConsumerGroupDescription description =
          admin
              .describeConsumerGroups(List.of(group))
              .describedGroups()
              .get(group)
              .get(10, TimeUnit.SECONDS);
      return description.members().stream()
          .anyMatch(m -> !m.assignment().topicPartitions().isEmpty());
    }
  }
}
