package dev.agentrt.testing;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.store.StoreIndexes;
import java.util.List;
import org.springframework.data.mongodb.core.MongoTemplate;

/** A real MongoDB-protocol server in memory, with the store's indexes. */
public final class InMemoryMongo implements AutoCloseable {

  private final MongoServer server;
  private final MongoClient client;
  private final MongoTemplate template;

  private InMemoryMongo(List<CommandListener> listeners) {
    server = new MongoServer(new MemoryBackend());
    MongoClientSettings.Builder settings =
        MongoClientSettings.builder()
            .applyConnectionString(
                new ConnectionString("mongodb://127.0.0.1:" + server.bind().getPort()));
    listeners.forEach(settings::addCommandListener);
    client = MongoClients.create(settings.build());
    template = new MongoTemplate(client, "agentrt");
    new StoreIndexes(template).afterPropertiesSet();
  }

  public static InMemoryMongo start() {
    return new InMemoryMongo(List.of());
  }

  /** A server whose client tells {@code commands} what it sends (e.g. {@link MongoCommands}). */
  public static InMemoryMongo start(CommandListener commands) {
    return new InMemoryMongo(List.of(commands));
  }

  public MongoTemplate template() {
    return template;
  }

  /** Forgets every document; the indexes stay. */
  public void clear() {
    for (String collection : template.getCollectionNames()) {
      template.getCollection(collection).deleteMany(new org.bson.Document());
    }
  }

  @Override
  public void close() {
    client.close();
    server.shutdownNow();
  }
}
