package dev.agentrt.systemtests;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/** What a redelivery must leave as it was: how many documents each collection holds. */
final class StoredDocuments {

  private StoredDocuments() {}

  /** Every collection's count of documents. */
  static Map<String, Long> counts(String mongoUri) {
    try (MongoClient client = MongoClients.create(mongoUri)) {
      MongoDatabase db = client.getDatabase("agentrt");
      return StreamSupport.stream(db.listCollectionNames().spliterator(), false)
          .collect(Collectors.toMap(name -> name, name -> db.getCollection(name).countDocuments()));
    }
  }
}
