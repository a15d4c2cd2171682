package dev.agentrt.localstack.mongo;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.h2.H2Collection;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.h2.mvstore.MVMap;
import org.jspecify.annotations.Nullable;

/**
 * An H2 collection that narrows every query (find, update, findAndModify, count, delete) to the
 * documents an index says can match, before the library's matcher checks them: the fewest
 * candidates among its unique indexes whose keys the query names (with other conditions beside
 * them, which the library does not allow for) and its {@link FieldIndex}es, one per indexed path. A
 * query no index can narrow reads the whole collection, as before.
 *
 * <p>The field indexes follow every write through the three hooks all writes pass (insert, update,
 * remove), each under the collection's lock, which queries take as well.
 */
final class IndexedH2Collection extends H2Collection {

  private final Map<String, FieldIndex> fieldIndexes = new LinkedHashMap<>();

  /** The stored documents by position: the order a query that no index narrows reads them in. */
  private final MVMap<Object, Document> dataMap;

  IndexedH2Collection(
      MongoDatabase database,
      String collectionName,
      CollectionOptions options,
      MVMap<Object, Document> dataMap,
      MVMap<String, Object> metaMap,
      CursorRegistry cursorRegistry) {
    super(database, collectionName, options, dataMap, metaMap, cursorRegistry);
    this.dataMap = dataMap;
  }

  /** Keeps the documents by their values at {@code path} from now on, those stored included. */
  synchronized void indexField(String path) {
    if (fieldIndexes.containsKey(path)) {
      return;
    }
    FieldIndex index = new FieldIndex(path);
    streamAllDocumentsWithPosition().forEach(d -> index.add(d.getPosition(), d.getDocument()));
    fieldIndexes.put(path, index);
  }

  @Override
  protected synchronized QueryResult queryDocuments(
      Document query,
      Document orderBy,
      int numberToSkip,
      int limit,
      int batchSize,
      Document fieldSelector) {
    Collection<Object> candidates = isNaturalOrder(orderBy) ? null : candidates(query);
    if (candidates == null) {
      return super.queryDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
    }
    // A copy: the index changes with every write, and the result may be read after this returns.
    // In the order of the stored documents, as if every one had been read: which document a
    // query without a sort finds first (findOne, updateOne, findAndModify) stays the same.
    List<Object> positions = new ArrayList<>(candidates);
    positions.sort(dataMap.getKeyType());
    return matchDocuments(query, positions, orderBy, numberToSkip, limit, batchSize, fieldSelector);
  }

  /**
   * The fewest positions an index gives for the query, or null if none can narrow it. The clauses
   * of a top-level {@code $and} each hold for every match, so each may narrow it too: {@code {$and:
   * [{_id: x}, {status: "active"}, {$or: […]}]}}, as Spring Data writes a lease's claim, is
   * narrowed to one document by its {@code _id}.
   */
  @Nullable Collection<Object> candidates(Document query) {
    return narrower(null, query);
  }

  /** {@code narrowest}, or fewer positions if an index gives them for {@code query}. */
  private @Nullable Collection<Object> narrower(
      @Nullable Collection<Object> narrowest, Document query) {
    for (Index<Object> index : getIndexes()) {
      Collection<Object> candidates = index.isUnique() ? uniqueCandidates(index, query) : null;
      narrowest = fewer(narrowest, candidates);
    }
    for (Map.Entry<String, Object> condition : query.entrySet()) {
      FieldIndex index = fieldIndexes.get(condition.getKey());
      if (index != null) {
        int bound = narrowest == null ? Integer.MAX_VALUE : narrowest.size();
        narrowest = fewer(narrowest, index.candidates(condition.getValue(), bound));
      }
    }
    if (query.get("$and") instanceof List<?> clauses) {
      for (Object clause : clauses) {
        if (clause instanceof Document conditions) {
          narrowest = narrower(narrowest, conditions);
        }
      }
    }
    return narrowest;
  }

  /** What a unique index finds for the query's conditions on its keys, if it can. */
  private static @Nullable Collection<Object> uniqueCandidates(
      Index<Object> index, Document query) {
    Document onKeys = new Document();
    for (IndexKey key : index.getKeys()) {
      if (!query.containsKey(key.getKey())) {
        return null;
      }
      onKeys.put(key.getKey(), query.get(key.getKey()));
    }
    if (!index.canHandle(onKeys)) {
      return null;
    }
    List<Object> positions = new ArrayList<>();
    index.getPositions(onKeys).forEach(positions::add);
    return positions;
  }

  private static @Nullable Collection<Object> fewer(
      @Nullable Collection<Object> a, @Nullable Collection<Object> b) {
    if (a == null) {
      return b;
    }
    return b == null || a.size() <= b.size() ? a : b;
  }

  /**
   * No running total of the collection's size: the library would otherwise encode every document it
   * inserts, and the old and the new one of every update, only to count their bytes (some 5 % of
   * the server's time under the benchmark's load). Nothing here asks for it: {@code collStats}
   * reports a size of 0.
   */
  @Override
  protected boolean tracksDataSize() {
    return false;
  }

  private static boolean isNaturalOrder(@Nullable Document orderBy) {
    return orderBy != null && orderBy.containsKey("$natural");
  }

  @Override
  protected Object addDocumentInternal(Document document) {
    Object position = super.addDocumentInternal(document);
    fieldIndexes.values().forEach(index -> index.add(position, document));
    return position;
  }

  @Override
  protected void handleUpdate(Object position, Document oldDocument, Document newDocument) {
    super.handleUpdate(position, oldDocument, newDocument);
    fieldIndexes.values().forEach(index -> index.update(position, oldDocument, newDocument));
  }

  @Override
  protected void removeDocument(Object position) {
    Document document = getDocument(position);
    super.removeDocument(position);
    if (document != null) {
      fieldIndexes.values().forEach(index -> index.remove(position, document));
    }
  }
}
