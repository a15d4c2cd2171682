package dev.agentrt.localstack.mongo;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.EmptyIndex;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.h2.H2Database;
import java.util.List;
import org.h2.mvstore.MVStore;
import org.jspecify.annotations.Nullable;

/**
 * An H2 database whose collections narrow queries with indexes ({@link IndexedH2Collection}): the
 * first key of every index created — non-unique ones, which the library otherwise ignores, and
 * compound unique ones, which it uses only for an exact match on all their keys. Unique indexes,
 * {@code _id} included, are {@link HashUniqueIndex}es.
 */
final class IndexedH2Database extends H2Database {

  /**
   * The store of the database under construction: H2Database's constructor reopens the stored
   * collections and indexes through the overrides below before this class's fields are set.
   */
  private static final ThreadLocal<MVStore> CONSTRUCTING = new ThreadLocal<>();

  private final @Nullable MVStore store;

  private IndexedH2Database(String databaseName, MVStore store, CursorRegistry cursorRegistry) {
    super(databaseName, store, cursorRegistry);
    this.store = store;
  }

  static IndexedH2Database open(String databaseName, MVStore store, CursorRegistry cursorRegistry) {
    CONSTRUCTING.set(store);
    try {
      return new IndexedH2Database(databaseName, store, cursorRegistry);
    } finally {
      CONSTRUCTING.remove();
    }
  }

  @Override
  protected MongoCollection<Object> openOrCreateCollection(
      String collectionName, CollectionOptions options) {
    MVStore mvStore = store != null ? store : CONSTRUCTING.get();
    String fullName = getFullCollectionNamespace(collectionName);
    // The map names H2Database gives a collection, so one H2 file opens with either class.
    return new IndexedH2Collection(
        this,
        collectionName,
        options,
        mvStore.openMap("databases." + fullName),
        mvStore.openMap("meta." + fullName),
        cursorRegistry);
  }

  @Override
  protected Index<Object> openOrCreateUniqueIndex(
      String collectionName, String indexName, List<IndexKey> keys, boolean sparse) {
    if (keys.size() > 1) {
      indexFirstKey(collectionName, keys);
    }
    return new HashUniqueIndex(indexName, keys, sparse);
  }

  @Override
  protected Index<Object> openOrCreateSecondaryIndex(
      String collectionName, String indexName, List<IndexKey> keys, boolean sparse) {
    indexFirstKey(collectionName, keys);
    // Listed like any other index; its positions are kept by the collection's field index.
    return new EmptyIndex<>(indexName, keys);
  }

  private void indexFirstKey(String collectionName, List<IndexKey> keys) {
    ((IndexedH2Collection) resolveOrCreateCollection(collectionName))
        .indexField(keys.getFirst().getKey());
  }
}
