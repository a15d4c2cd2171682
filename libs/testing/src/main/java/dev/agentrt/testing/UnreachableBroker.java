package dev.agentrt.testing;

import dev.agentrt.platform.messaging.EventPublisher;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * For tests of what is written, without a broker: an {@link Outbox} whose every send fails, as when
 * the broker is away, so events stay in their documents' outboxes for the relay and the test reads
 * them there.
 */
public final class UnreachableBroker {

  private UnreachableBroker() {}

  public static Outbox outbox(MongoTemplate mongo) {
    return new Outbox(
        new EventPublisher(null, "unreachable-broker") {
          @Override
          public CompletableFuture<?> send(OutboxEntry entry, Map<String, String> headers) {
            return CompletableFuture.failedFuture(new IllegalStateException("no broker"));
          }
        },
        mongo);
  }
}
