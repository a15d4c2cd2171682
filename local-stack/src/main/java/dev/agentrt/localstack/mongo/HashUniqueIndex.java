package dev.agentrt.localstack.mongo;

import de.bwaldvogel.mongo.backend.AbstractUniqueIndex;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A unique index kept in a hash map. The H2 backend's own unique index is an H2 map whose keys it
 * compares by serializing them (Java serialization, on every lookup, the {@code _id} index
 * included); this one is rebuilt from the stored documents when the collection is opened, as the
 * library does for any empty index it is given.
 */
final class HashUniqueIndex extends AbstractUniqueIndex<Object> {

  private final Map<KeyValue, Object> positions = new ConcurrentHashMap<>();

  HashUniqueIndex(String name, List<IndexKey> keys, boolean sparse) {
    super(name, keys, sparse);
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
