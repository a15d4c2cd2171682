package dev.agentrt.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;

/** Exists on a real MongoDB-protocol server. */
class ExistsTest {

  private static MongoServer server;
  private static MongoClient client;
  private static MongoTemplate mongo;
  private static final List<String> commands = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() {
    server = new MongoServer(new MemoryBackend());
    client =
        MongoClients.create(
            MongoClientSettings.builder()
                .applyConnectionString(
                    new ConnectionString("mongodb://127.0.0.1:" + server.bind().getPort()))
                .addCommandListener(
                    new CommandListener() {
                      @Override
                      public void commandStarted(CommandStartedEvent event) {
                        commands.add(event.getCommandName());
                      }
                    })
                .build());
    mongo = new MongoTemplate(client, "agentrt");
  }

  @AfterAll
  static void stop() {
    client.close();
    server.shutdownNow();
  }

  @Test
  void findsWhatMatchesWithAFindAndLeavesTheQueryAsItWas() {
    String id = Ids.fresh();
    mongo.insert(
        new SubAgent(
            id,
            "t",
            "c",
            "a",
            SubAgentStatus.cancelled,
            0,
            null,
            Instant.EPOCH,
            Instant.EPOCH,
            null,
            null));
    Query cancelled =
        Query.query(Criteria.where("_id").is(id).and("status").is(SubAgentStatus.cancelled));
    Query active =
        Query.query(Criteria.where("_id").is(id).and("status").is(SubAgentStatus.active));

    commands.clear();
    assertThat(Exists.any(mongo, cancelled, SubAgent.class)).isTrue();
    assertThat(Exists.any(mongo, active, SubAgent.class)).isFalse();
    assertThat(Exists.any(mongo, cancelled, Task.class)).isFalse();
    // A find, which an index answers on the embedded server too; not a count's aggregation.
    assertThat(commands).containsOnly("find");
    assertThat(cancelled.getLimit()).isZero();
    assertThat(cancelled.getFieldsObject()).isEmpty();
  }
}
