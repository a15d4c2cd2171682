package dev.agentrt.systemtests;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/** What a redelivery must leave as it was: how many documents each collection holds. */
final class StoredDocuments {

  /**
   * The ledger's record of the positions it took and did not use: a step recorded again takes a
   * position, as it moves the chat's counter, and stores nothing else.
   */
  private static final String UNUSED_POSITIONS = "run_event_skips";

  private StoredDocuments() {}

  /** Every collection's count of documents, but the ledger's unused positions. */
  static Map<String, Long> counts(String mongoUri) {
    try (MongoClient client = MongoClients.create(mongoUri)) {
      MongoDatabase db = client.getDatabase("agentrt");
      return StreamSupport.stream(db.listCollectionNames().spliterator(), false)
          .filter(name -> !name.equals(UNUSED_POSITIONS))
          .collect(Collectors.toMap(name -> name, name -> db.getCollection(name).countDocuments()));
    }
  }
}
