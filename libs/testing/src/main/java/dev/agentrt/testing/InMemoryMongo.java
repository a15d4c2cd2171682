package dev.agentrt.testing;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.agentrt.store.StoreIndexes;
import org.springframework.data.mongodb.core.MongoTemplate;

/** A real MongoDB-protocol server in memory, with the store's indexes. */
public final class InMemoryMongo implements AutoCloseable {

  private final MongoServer server;
  private final MongoClient client;
  private final MongoTemplate template;

  private InMemoryMongo() {
    server = new MongoServer(new MemoryBackend());
    client = MongoClients.create("mongodb://127.0.0.1:" + server.bind().getPort());
    template = new MongoTemplate(client, "agentrt");
    new StoreIndexes(template).afterPropertiesSet();
  }

  public static InMemoryMongo start() {
    return new InMemoryMongo();
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
