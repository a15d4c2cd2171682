package dev.agentrt.store;

import dev.agentrt.platform.BulkWrites;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.FindAndModifyOptions;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Adds stored model turns to the {@link Usage} of a chat, task or sub-agent with one {@code $inc}
 * per document. An {@code $inc} is not idempotent: call it exactly once per stored outcome, right
 * after the write that stored it, and only when that write inserted it (not when it found the
 * outcome stored before). A redelivered event or a repeated outcome then counts nothing twice.
 */
public class UsageCounter {

  /** The key of the default model's share: turns that named no model. */
  static final String DEFAULT_MODEL_KEY = "(default)";

  private final MongoTemplate mongo;
  private final BulkWrites updates;

  /** A counter whose sums are added in bulk writes of its own. */
  public UsageCounter(MongoTemplate mongo) {
    this(mongo, new BulkWrites(mongo));
  }

  /** A counter whose sums are added in the service's bulk writes, with its other updates. */
  public UsageCounter(MongoTemplate mongo, BulkWrites updates) {
    this.mongo = mongo;
    this.updates = updates;
  }

  /**
   * Adds {@code turns} model turns that used these tokens, asked of {@code model} (null: the
   * default model), to the document's sums, in one bulk write with the other updates queued
   * meanwhile ({@link BulkWrites}); returns once it is written. Nothing happens when the document
   * does not exist.
   */
  public void add(
      Class<?> document, String id, @Nullable String model, TurnUsage tokens, int turns) {
    if (turns <= 0) {
      return;
    }
    // By collection name, not class: mapped against the class, each usage.models.<model> path
    // costs Spring Data thrown and caught exceptions.
    updates.update(
        Query.query(Criteria.where("_id").is(id)),
        sums(model, tokens, turns),
        mongo.getCollectionName(document));
  }

  /**
   * Adds one model turn of a task's own sub-agent to the task's sums, as {@link #add} does, and its
   * tokens to the task's run ({@link Task#RUN_TOKENS}) in the same write.
   *
   * @param firstOfRun the turn is the first of the run: the run's sum restarts from it
   * @return the tokens of the task's run, its descendants' included, after this turn
   */
  public long addToRun(
      String taskId, @Nullable String model, TurnUsage tokens, boolean firstOfRun) {
    return runTokens(taskId, runUpdate(model, tokens, firstOfRun));
  }

  private static Update runUpdate(@Nullable String model, TurnUsage tokens, boolean firstOfRun) {
    Update update = sums(model, tokens, 1);
    long total = tokens.promptTokens() + tokens.completionTokens();
    if (firstOfRun) {
      update.set(Task.RUN_TOKENS, total);
    } else {
      update.inc(Task.RUN_TOKENS, total);
    }
    return update;
  }

  /**
   * {@link #addToRun} for a task whose run has no turns but its own sub-agent's (it started no
   * child task): its caller has the run's sum from the conversation, so nothing is read back, and
   * the write is queued, to go in one bulk write with the other writes queued meanwhile (the
   * caller's own among them, when it queues them before it waits).
   *
   * @return completes once it is written, or fails with why it was not
   */
  public CompletableFuture<Void> queueToOwnRun(
      String taskId, @Nullable String model, TurnUsage tokens, boolean firstOfRun) {
    return updates.queue(
        Query.query(Criteria.where("_id").is(taskId)),
        runUpdate(model, tokens, firstOfRun),
        Collections.TASKS);
  }

  /**
   * Adds one model turn of a descendant to the run of the tree's root task ({@link
   * Task#RUN_TOKENS}).
   *
   * @return the tokens of the root's run, the whole tree's, after this turn
   */
  public long addToTree(String rootTaskId, TurnUsage tokens) {
    return runTokens(
        rootTaskId,
        new Update().inc(Task.RUN_TOKENS, tokens.promptTokens() + tokens.completionTokens()));
  }

  private long runTokens(String taskId, Update update) {
    Query task = Query.query(Criteria.where("_id").is(taskId));
    task.fields().include(Task.RUN_TOKENS);
    Document counted =
        mongo.findAndModify(
            task,
            update,
            FindAndModifyOptions.options().returnNew(true),
            Document.class,
            Collections.TASKS);
    return counted == null ? 0 : ((Number) counted.get(Task.RUN_TOKENS)).longValue();
  }

  private static Update sums(@Nullable String model, TurnUsage tokens, int turns) {
    Update update = new Update();
    counts(model, tokens, turns).forEach(update::inc);
    return update;
  }

  /**
   * What {@link #add} adds to a document's sums, {@code path → amount}: for a write made elsewhere
   * (a chat's, queued with the append of the step's run event: {@link RunLedger#append(String,
   * List, Map)}); nothing for no turns. The same rule holds: add it exactly once per stored
   * outcome.
   */
  public static Map<String, Long> counts(@Nullable String model, TurnUsage tokens, int turns) {
    if (turns <= 0) {
      return Map.of();
    }
    String share = "usage.models." + key(model) + ".";
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("usage.promptTokens", tokens.promptTokens());
    counts.put("usage.completionTokens", tokens.completionTokens());
    counts.put("usage.turns", (long) turns);
    counts.put(share + "promptTokens", tokens.promptTokens());
    counts.put(share + "completionTokens", tokens.completionTokens());
    counts.put(share + "turns", (long) turns);
    return java.util.Collections.unmodifiableMap(counts);
  }

  /**
   * A model's name as a field name: MongoDB paths split at dots and treat a leading {@code $} as an
   * operator, so {@code %}, {@code .} and {@code $} are percent-encoded (and {@code (}, which no
   * name then shares with the default model's key) ({@code gpt-4.1} → {@code gpt-4%2E1}).
   */
  static String key(@Nullable String model) {
    if (model == null) {
      return DEFAULT_MODEL_KEY;
    }
    return model.replace("%", "%25").replace(".", "%2E").replace("$", "%24").replace("(", "%28");
  }

  /** The model's name of a {@link #key}; null for the default model. */
  static @Nullable String modelName(String key) {
    if (DEFAULT_MODEL_KEY.equals(key)) {
      return null;
    }
    return key.replace("%28", "(").replace("%24", "$").replace("%2E", ".").replace("%25", "%");
  }
}
