package dev.agentrt.localstack.mongo;

import de.bwaldvogel.mongo.backend.AbstractUniqueIndex;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.bson.Document;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A unique index kept in a hash map. The H2 backend's own unique index is an H2 map whose keys it
 * compares by serializing them (Java serialization, on every lookup, the {@code _id} index
 * included); this one is rebuilt from the stored documents when the collection is opened, as the
 * library does for any empty index it is given.
 */
final class HashUniqueIndex extends AbstractUniqueIndex<Object> {

  private final Map<KeyValue, Object> positions = new ConcurrentHashMap<>();

  /** The keys' names, when every one names a field of the document itself (no dot); else null. */
  private final @Nullable List<String> topLevelKeys;

  HashUniqueIndex(String name, List<IndexKey> keys, boolean sparse) {
    super(name, keys, sparse);
    List<String> names = keys.stream().map(IndexKey::getKey).toList();
    this.topLevelKeys = names.stream().anyMatch(key -> key.indexOf('.') >= 0) ? null : names;
  }

  /**
   * Whether an update left the document's keys as they were, which the library asks twice for every
   * update of every document: answered from the fields themselves when they are the same (most
   * updates touch no key), else by the library, which builds both documents' key values.
   */
  @Override
  protected boolean nullAwareEqualsKeys(Document before, Document after) {
    if (topLevelKeys != null && topLevelKeys.stream().allMatch(k -> unchanged(k, before, after))) {
      return true;
    }
    return super.nullAwareEqualsKeys(before, after);
  }

  private static boolean unchanged(String key, Document before, Document after) {
    return before.containsKey(key) == after.containsKey(key)
        && Objects.equals(before.get(key), after.get(key));
  }

  @Override
  protected Object removeDocument(KeyValue keyValue) {
    return positions.remove(keyValue);
  }

  @Override
  protected boolean putKeyPosition(KeyValue keyValue, Object position) {
    return positions.putIfAbsent(keyValue, position) == null;
  }

  @Override
  protected Iterable<Map.Entry<KeyValue, Object>> getIterable() {
    return positions.entrySet();
  }

  @Override
  protected Object getPosition(KeyValue keyValue) {
    return positions.get(keyValue);
  }

  @Override
  public long getCount() {
    return positions.size();
  }

  @Override
  public long getDataSize() {
    return getCount(); // as the library's in-memory index reports it
  }
}
