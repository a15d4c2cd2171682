package dev.agentrt.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.nio.file.Path;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedMongoTest {

  @Test
  void keepsDocumentsAcrossRestarts(@TempDir Path dataDir) {
    try (EmbeddedMongo mongo = EmbeddedMongo.start(dataDir, 0);
        MongoClient client = MongoClients.create(mongo.uri())) {
      assertThat(mongo.uri()).matches("mongodb://127\\.0\\.0\\.1:\\d+/agentrt");
      client.getDatabase("agentrt").getCollection("tasks").insertOne(new Document("_id", "t-1"));
    }

    try (EmbeddedMongo mongo = EmbeddedMongo.start(dataDir, 0);
        MongoClient client = MongoClients.create(mongo.uri())) {
      assertThat(client.getDatabase("agentrt").getCollection("tasks").find().first())
          .isEqualTo(new Document("_id", "t-1"));
    }
  }

  @Test
  void startsAgainOnTheSamePortWithItsData(@TempDir Path dataDir) {
    EmbeddedMongo first = EmbeddedMongo.start(dataDir, 0);
    try (MongoClient client = MongoClients.create(first.uri())) {
      client.getDatabase("agentrt").getCollection("tasks").insertOne(new Document("_id", "t-2"));
    }
    assertThatThrownBy(first::startAgain).hasMessageContaining("still running");
    first.close();

    try (EmbeddedMongo again = first.startAgain();
        MongoClient client = MongoClients.create(again.uri())) {
      assertThat(again.uri()).isEqualTo(first.uri());
      assertThat(client.getDatabase("agentrt").getCollection("tasks").find().first())
          .isEqualTo(new Document("_id", "t-2"));
    }
  }

  @Test
  void answersHelloLikeMongoDb() {
    try (EmbeddedMongo mongo = EmbeddedMongo.start(null, 0);
        MongoClient client = MongoClients.create(mongo.uri())) {
      Document hello = client.getDatabase("agentrt").runCommand(new Document("hello", 1));

      assertThat(hello.getBoolean("isWritablePrimary")).isTrue();
      assertThat(hello.getInteger("maxWireVersion")).isPositive();
      assertThat(hello.get("ok", Number.class).intValue()).isEqualTo(1);
    }
  }

  @Test
  void servesFromMemoryWithoutDataDir() {
    try (EmbeddedMongo mongo = EmbeddedMongo.start(null, 0);
        MongoClient client = MongoClients.create(mongo.uri())) {
      client.getDatabase("agentrt").getCollection("tasks").insertOne(new Document("_id", "t-1"));
      assertThat(client.getDatabase("agentrt").getCollection("tasks").countDocuments())
          .isEqualTo(1);
    }
  }
}
