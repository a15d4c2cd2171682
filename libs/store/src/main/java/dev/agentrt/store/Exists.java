package dev.agentrt.store;

import org.bson.Document;
import org.springframework.data.mongodb.core.MongoOperations;
import org.springframework.data.mongodb.core.query.Query;

/**
 * Whether any document matches a query, asked as a find of one {@code _id}. {@code
 * MongoOperations.exists} asks a count instead, which the driver sends as an aggregation: an index
 * answers either on MongoDB, but the embedded server (local-stack) answers an aggregation by
 * reading the whole collection, and a tool call or a sweep asked it per document.
 */
public final class Exists {

  private Exists() {}

  /** Whether a document of {@code type}'s collection matches {@code query}. */
  public static boolean any(MongoOperations mongo, Query query, Class<?> type) {
    Query one = Query.of(query).limit(1);
    one.fields().include("_id");
    return mongo.query(type).as(Document.class).matching(one).first().isPresent();
  }
}
