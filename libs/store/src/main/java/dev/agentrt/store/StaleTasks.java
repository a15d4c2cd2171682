package dev.agentrt.store;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;

/**
 * Pages through the tasks in some statuses whose last change is older than a moment, oldest change
 * first, one batch per call: each call goes on after the last task the previous one returned, and
 * after the last task it starts over. For the sweeps that find tasks whose event was lost, so that
 * tasks the sweep has to leave as they are (a question already asked) never hide the others. The
 * index on {@code tasks {status, updatedAt}} serves it. Not thread-safe: one sweep calls it.
 */
public final class StaleTasks {

  private final MongoTemplate mongo;
  private final List<TaskStatus> statuses;
  private final int batch;
  private @Nullable Task last;

  public StaleTasks(MongoTemplate mongo, List<TaskStatus> statuses, int batch) {
    this.mongo = mongo;
    this.statuses = List.copyOf(statuses);
    this.batch = batch;
  }

  /**
   * The next batch of tasks last changed in {@code [notBefore, before)}.
   *
   * @param notBefore null: however long ago
   */
  public List<Task> next(@Nullable Instant notBefore, Instant before) {
    // one condition per field at the top, where an index on it is seen by every backend
    Criteria stale = Criteria.where("status").in(statuses);
    Criteria changed = stale.and("updatedAt").lt(before);
    if (notBefore != null) {
      changed.gte(notBefore);
    }
    if (last != null) {
      changed.orOperator(
          Criteria.where("updatedAt").gt(last.updatedAt()),
          Criteria.where("updatedAt").is(last.updatedAt()).and("_id").gt(last.id()));
    }
    List<Task> tasks =
        mongo.find(Query.query(changed).with(Sort.by("updatedAt", "id")).limit(batch), Task.class);
    last = tasks.size() < batch ? null : tasks.getLast();
    return tasks;
  }
}
