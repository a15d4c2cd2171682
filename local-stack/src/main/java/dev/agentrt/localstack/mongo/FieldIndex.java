package dev.agentrt.localstack.mongo;

import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The documents of a collection by the values at one path: which positions hold a given string,
 * ObjectId or boolean there (an array counts for each of its elements), and which hold any value at
 * all. It answers "which documents can match this condition on the path" with a superset of them,
 * or says it cannot narrow the condition; the query matcher still checks every candidate. Not
 * thread-safe: the collection calls it under its own lock.
 */
final class FieldIndex {

  /** Comparisons that only a document with a value at the path can satisfy. */
  private static final Set<String> RANGE = Set.of("$lt", "$lte", "$gt", "$gte");

  private final String path;

  /** Whether the path names a field of the document itself (no dot): read without parsing it. */
  private final boolean topLevel;

  /** The document's field the path starts at. */
  private final String head;

  private final Map<Object, Set<Object>> positionsByValue = new HashMap<>();
  private final Set<Object> positionsWithValue = new LinkedHashSet<>();

  FieldIndex(String path) {
    this.path = path;
    this.topLevel = path.indexOf('.') < 0;
    this.head = topLevel ? path : path.substring(0, path.indexOf('.'));
  }

  void add(Object position, Document document) {
    add(position, valuesOf(document));
  }

  void remove(Object position, Document document) {
    remove(position, valuesOf(document));
  }

  /**
   * Follows a document's update; nothing to do when its values at the path stayed the same. An
   * unchanged field where the path starts tells that with one comparison, without parsing the path
   * in both documents: most updates leave most indexed fields alone.
   */
  void update(Object position, Document before, Document after) {
    if (Objects.equals(before.get(head), after.get(head))) {
      return;
    }
    List<Object> old = valuesOf(before);
    List<Object> now = valuesOf(after);
    if (!old.equals(now)) {
      remove(position, old);
      add(position, now);
    }
  }

  private void add(Object position, List<Object> values) {
    if (values.isEmpty()) {
      return;
    }
    positionsWithValue.add(position);
    for (Object value : values) {
      if (isKey(value)) {
        positionsByValue.computeIfAbsent(value, v -> new LinkedHashSet<>()).add(position);
      }
    }
  }

  private void remove(Object position, List<Object> values) {
    if (values.isEmpty()) {
      return;
    }
    positionsWithValue.remove(position);
    for (Object value : values) {
      Set<Object> positions = positionsByValue.get(value);
      if (positions != null && positions.remove(position) && positions.isEmpty()) {
        positionsByValue.remove(value);
      }
    }
  }

  /**
   * The positions of every document that can satisfy {@code condition} (a query's value for this
   * path), or null when this index cannot tell (null, {@code $ne}, {@code $exists}, regular
   * expressions, values of other types …) or would give {@code bound} positions or more, which is
   * no narrower than what the caller has: a union is built only when it is the narrowest.
   */
  @Nullable Collection<Object> candidates(@Nullable Object condition, int bound) {
    if (isKey(condition)) {
      return below(positionsByValue.getOrDefault(condition, Set.of()), bound);
    }
    if (!(condition instanceof Document operators) || operators.isEmpty()) {
      return null;
    }
    Collection<Object> narrowest = null;
    for (Map.Entry<String, Object> operator : operators.entrySet()) {
      Collection<Object> candidates =
          candidates(
              operator.getKey(), operator.getValue(), narrowest == null ? bound : narrowest.size());
      if (candidates != null) {
        narrowest = candidates;
      }
    }
    return narrowest;
  }

  private @Nullable Collection<Object> candidates(
      String operator, @Nullable Object operand, int bound) {
    if (operator.equals("$eq") && isKey(operand)) {
      return below(positionsByValue.getOrDefault(operand, Set.of()), bound);
    }
    if (operator.equals("$in") && operand instanceof Collection<?> values) {
      long size = 0;
      for (Object value : values) {
        if (!isKey(value)) {
          return null; // null (matches a missing value), a regular expression …
        }
        size += positionsByValue.getOrDefault(value, Set.of()).size();
      }
      if (size >= bound) {
        return null;
      }
      Set<Object> union = new LinkedHashSet<>();
      values.forEach(value -> union.addAll(positionsByValue.getOrDefault(value, Set.of())));
      return union;
    }
    if (RANGE.contains(operator) && operand != null) {
      return below(positionsWithValue, bound);
    }
    return null;
  }

  private static @Nullable Collection<Object> below(Collection<Object> positions, int bound) {
    return positions.size() < bound ? positions : null;
  }

  /** The non-null values at the path, an array's elements one by one; empty if none. */
  private List<Object> valuesOf(Document document) {
    Object value =
        topLevel ? document.get(path) : Utils.getSubdocumentValueCollectionAware(document, path);
    List<Object> values = new ArrayList<>();
    collect(value, values);
    return values;
  }

  private static void collect(@Nullable Object value, List<Object> values) {
    if (value instanceof Collection<?> elements) {
      for (Object element : elements) {
        collect(element, values);
      }
    } else if (value != null && !(value instanceof Missing)) {
      values.add(value);
    }
  }

  /** A value whose equality is plain {@code equals}, whatever the BSON normalisation does. */
  private static boolean isKey(@Nullable Object value) {
    return value instanceof String || value instanceof ObjectId || value instanceof Boolean;
  }
}
