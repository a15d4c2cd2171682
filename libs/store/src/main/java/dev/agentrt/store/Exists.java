package dev.agentrt.store;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import org.bson.Document;
import org.springframework.data.mongodb.core.MongoOperations;
import org.springframework.data.mongodb.core.query.Query;

/**
 * Whether any document matches a query, asked as a find of one {@code _id}. {@code
 * MongoOperations.exists} asks a count instead, which the driver sends as an aggregation: an index
 * answers either on MongoDB, but the embedded server (local-stack) answers an aggregation by
 * reading the whole collection, and a tool call or a sweep asked it per document. Which of many ids
 * exist is one find of those ids.
 */
public final class Exists {

  private Exists() {}

  /** Whether a document of {@code type}'s collection matches {@code query}. */
  public static boolean any(MongoOperations mongo, Query query, Class<?> type) {
    Query one = Query.of(query).limit(1);
    one.fields().include("_id");
    return mongo.query(type).as(Document.class).matching(one).first().isPresent();
  }

  /** Which of these ids a document of the collection has: one read, of the ids only. */
  public static Set<String> among(
      MongoOperations mongo, String collection, Collection<String> ids) {
    Set<String> found = new HashSet<>();
    if (ids.isEmpty()) {
      return found;
    }
    mongo
        .getCollection(collection)
        .find(Filters.in("_id", ids))
        .projection(Projections.include("_id"))
        .forEach(d -> found.add(String.valueOf(d.get("_id"))));
    return found;
  }
}
