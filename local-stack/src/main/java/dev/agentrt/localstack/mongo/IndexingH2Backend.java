package dev.agentrt.localstack.mongo;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import org.jspecify.annotations.Nullable;

/**
 * mongo-java-server's H2 backend with secondary indexes. The library keeps only unique indexes and
 * uses one only when a query names exactly its keys, so {@code {_id: x, status: "pending"}} or
 * {@code {subAgentId: x}} read every document of the collection, and the cost of each query grows
 * with everything ever stored. Here every query first narrows its candidates with the indexes the
 * application created (see {@link IndexedH2Collection}); what it returns is unchanged.
 */
public class IndexingH2Backend extends H2Backend {

  /**
   * @param fileName the H2 file, or {@code null} for memory only
   */
  public IndexingH2Backend(@Nullable String fileName) {
    super(fileName);
  }

  @Override
  protected MongoDatabase openOrCreateDatabase(String databaseName) {
    return IndexedH2Database.open(databaseName, getMvStore(), getCursorRegistry());
  }
}
