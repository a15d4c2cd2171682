package dev.agentrt.store;

import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.BulkWrites.Stored;
import dev.agentrt.platform.outbox.Outbox;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Runs {@link Plan}s: every write that moves a plan on, in one place. A plan is moved on by reading
 * it and its running nodes' tasks and making whatever conditional writes that state calls for
 * ({@link #advance}), so the same call serves its start, every task event, a redelivered event, two
 * services at once and a sweep after a crash: each write matches only the state it moves from
 * ({@code nodes.<i>.status: pending → running} once), and a node's task id derives from the plan's
 * and the node's, so a node's task is inserted once whoever starts it.
 *
 * <p>A node is marked {@code running} before its task is inserted: a crash between the two leaves a
 * running node without a task, which the next advance inserts. A task is inserted with its {@code
 * TaskCreated} in its outbox and published at once; the outbox relay publishes what a crash left.
 */
public final class Plans {

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final Outbox outbox;
  private final EventCodec codec;
  private final RunLedger ledger;
  private final TaskCancellation cancellation;
  private final Clock clock = Clock.tickMillis(ZoneOffset.UTC); // as precise as MongoDB

  /** Plans whose plans and tasks are inserted with the writes of other callers ({@code writes}). */
  public Plans(
      MongoTemplate mongo, BulkWrites writes, Outbox outbox, EventCodec codec, RunLedger ledger) {
    this.mongo = mongo;
    this.writes = writes;
    this.outbox = outbox;
    this.codec = codec;
    this.ledger = ledger;
    this.cancellation = new TaskCancellation(mongo, outbox, codec, ledger);
  }

  /** The id of a node's task: the same whoever starts it, however often. */
  public static String taskId(String planId, String nodeId) {
    return Ids.derived(planId, "node/" + nodeId);
  }

  /**
   * Stores a new plan, unless it is stored already.
   *
   * @return whether this call stored it
   */
  public boolean create(Plan plan) {
    return create(plan, Map.of());
  }

  /**
   * Stores a new plan, unless it is stored already; when this call stores it, adds {@code counts}
   * to the chat's counters with its {@code plan_created} event ({@link RunLedger#append(String,
   * List, Map)}).
   *
   * @return whether this call stored it
   */
  public boolean create(Plan plan, Map<String, Long> counts) {
    Stored<Plan> created = writes.insertOrFind(plan);
    Plan stored = created.document();
    RunLedger.Step event =
        new RunLedger.Step(
            "plan_created/" + stored.id(),
            RunEvent.PLAN_CREATED,
            null,
            null,
            null,
            RunLedger.data(
                "planId",
                stored.id(),
                "nodes",
                stored.nodes().stream()
                    .map(
                        n ->
                            Map.of(
                                "id",
                                n.id(),
                                "agent",
                                n.agent(),
                                "dependsOn",
                                n.dependsOn(),
                                "taskId",
                                n.taskId()))
                    .toList()));
    ledger.append(stored.chatId(), List.of(event), created.inserted() ? counts : Map.of());
    return created.inserted();
  }

  public Optional<Plan> find(String planId) {
    return Optional.ofNullable(mongo.findById(planId, Plan.class));
  }

  /** The plan whose node the task is, if it is one. */
  public Optional<Plan> ofTask(String taskId) {
    return Optional.ofNullable(ofTasks(Set.of(taskId)).get(taskId));
  }

  /** The plans whose nodes these tasks are, by task id; one read for all of them. */
  public Map<String, Plan> ofTasks(Set<String> taskIds) {
    if (taskIds.isEmpty()) {
      return Map.of();
    }
    Map<String, Plan> byTask = new HashMap<>();
    for (Plan plan :
        mongo.find(Query.query(Criteria.where("nodes.taskId").in(taskIds)), Plan.class)) {
      for (PlanNode node : plan.nodes()) {
        if (taskIds.contains(node.taskId())) {
          byTask.put(node.taskId(), plan);
        }
      }
    }
    return byTask;
  }

  /** The chat's plans, oldest first. */
  public List<Plan> ofChat(String chatId) {
    return mongo.find(
        Query.query(Criteria.where("chatId").is(chatId)).with(Sort.by("createdAt", "id")),
        Plan.class);
  }

  /**
   * Asks for the plan to stop: no pending node starts any more (the next advance skips them). The
   * caller cancels the running nodes' tasks; their ends move the plan on as any task's do.
   *
   * @return the plan as it stands after, empty if there is none
   */
  public Optional<Plan> requestCancel(String planId) {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(planId).and("status").is(PlanStatus.running)),
        new Update().set("cancelRequested", true).set("updatedAt", clock.instant()),
        Plan.class);
    return find(planId);
  }

  /**
   * Moves the plan on as far as its tasks allow: records the nodes whose task ended, skips the
   * nodes that depend on one that did not succeed and the pending nodes of a plan asked to stop,
   * starts every node whose dependencies all succeeded, and ends the plan when every node ended.
   * Repeats until a pass finds nothing to do.
   *
   * @return the plan as it stands after, empty if there is none
   */
  public Optional<Plan> advance(String planId) {
    Plan plan = mongo.findById(planId, Plan.class);
    while (plan != null && plan.status() == PlanStatus.running) {
      boolean acted = false;
      List<Integer> ready = new ArrayList<>();
      for (int i = 0; i < plan.nodes().size(); i++) {
        acted |= step(plan, i, ready);
      }
      if (!ready.isEmpty()) {
        start(plan, ready);
        acted = true;
      }
      Plan after = mongo.findById(planId, Plan.class);
      if (!acted) {
        return Optional.ofNullable(after == null ? null : endIfDone(after));
      }
      plan = after;
    }
    return Optional.ofNullable(plan);
  }

  /**
   * What node {@code i} of the plan calls for; whether a write was attempted. A node ready to start
   * goes to {@code ready}: the ready nodes start together.
   */
  private boolean step(Plan plan, int i, List<Integer> ready) {
    PlanNode node = plan.nodes().get(i);
    switch (node.status()) {
      case running -> {
        Task task = mongo.findById(node.taskId(), Task.class);
        if (task == null) {
          startTask(plan, node); // marked running, then a crash before its task was inserted
          return true;
        }
        return switch (task.status()) {
          case success, failed, cancelled -> end(plan, i, task);
          default -> false;
        };
      }
      case pending -> {
        if (plan.cancelRequested()) {
          return skip(plan, i, null);
        }
        Optional<String> blocker = blocker(plan, node);
        if (blocker.isPresent()) {
          return skip(plan, i, blocker.get());
        }
        boolean dependenciesSucceeded =
            node.dependsOn().stream()
                .allMatch(
                    d -> plan.node(d).map(n -> n.status() == PlanNodeStatus.success).orElse(false));
        if (dependenciesSucceeded) {
          ready.add(i);
        }
        return false;
      }
      default -> {
        return false;
      }
    }
  }

  /**
   * The node that keeps this one from running: a dependency that failed or was cancelled, or the
   * node a skipped dependency names.
   */
  private static Optional<String> blocker(Plan plan, PlanNode node) {
    for (String id : node.dependsOn()) {
      PlanNode dependency = plan.node(id).orElseThrow();
      switch (dependency.status()) {
        case failed, cancelled -> {
          return Optional.of(dependency.id());
        }
        case skipped -> {
          return Optional.of(
              dependency.skippedBecause() == null ? dependency.id() : dependency.skippedBecause());
        }
        default -> {}
      }
    }
    return Optional.empty();
  }

  /**
   * Starts the ready nodes together: one write moves them all {@code pending → running} with one
   * {@code startedAt}, so they run at the same time whatever ends meanwhile; then their tasks are
   * inserted and published. The write matches only while every one of them is pending and the plan
   * runs and is not being cancelled; if another copy started some meanwhile, the next pass sees it.
   */
  private void start(Plan plan, List<Integer> ready) {
    Instant now = clock.instant();
    Criteria condition =
        Criteria.where("_id")
            .is(plan.id())
            .and("status")
            .is(PlanStatus.running)
            .and("cancelRequested")
            .is(false);
    Update update = new Update().set("updatedAt", now);
    for (int i : ready) {
      condition = condition.and(field(i, "status")).is(PlanNodeStatus.pending);
      update.set(field(i, "status"), PlanNodeStatus.running).set(field(i, "startedAt"), now);
    }
    if (mongo.updateFirst(Query.query(condition), update, Plan.class).getModifiedCount() == 0) {
      return;
    }
    for (int i : ready) {
      PlanNode node = plan.nodes().get(i);
      startTask(plan, node);
      ledger.append(
          plan.chatId(),
          "plan_node_started/" + node.taskId(),
          RunEvent.PLAN_NODE_STARTED,
          node.taskId(),
          null,
          node.agent(),
          RunLedger.data("planId", plan.id(), "node", node.id(), "dependsOn", node.dependsOn()));
    }
  }

  private void startTask(Plan plan, PlanNode node) {
    Instant now = clock.instant();
    String instruction = instruction(plan, node);
    Task task =
        writes
            .insertOrFind(
                Task.created(
                    node.taskId(),
                    plan.chatId(),
                    node.agent(),
                    instruction,
                    plan.model(),
                    null,
                    plan.routing(),
                    null, // the chat's limits: not read here
                    true,
                    now,
                    codec))
            .document();
    outbox.publishOrLeaveToRelay(Collections.TASKS, task.id(), task.outbox());
    // A cancel of the plan marks it first, then cancels its running nodes' tasks; this start
    // stored the task first and reads the plan after. So a cancel that found no task yet is seen
    // here, and the task is cancelled before anything runs on it.
    Plan current = mongo.findById(plan.id(), Plan.class);
    if (current != null && current.cancelRequested()) {
      cancellation.cancel(task.id());
    }
  }

  /** The node's instruction, then the results of the nodes it depends on, one section each. */
  static String instruction(Plan plan, PlanNode node) {
    if (node.dependsOn().isEmpty()) {
      return node.instruction();
    }
    return node.instruction()
        + "\n\n"
        + RESULTS_HEADING
        + "\n\n"
        + node.dependsOn().stream()
            .map(id -> plan.node(id).orElseThrow())
            .map(
                d ->
                    "## "
                        + d.id()
                        + " ("
                        + d.agent()
                        + "): "
                        + d.instruction()
                        + "\n\n"
                        + (d.result() == null ? "" : d.result().strip()))
            .collect(Collectors.joining("\n\n"));
  }

  /** The line before the results of a node's dependencies in its task's instruction. */
  public static final String RESULTS_HEADING =
      "Results of the tasks this one depends on, one section each:";

  private boolean end(Plan plan, int i, Task task) {
    PlanNode node = plan.nodes().get(i);
    PlanNodeStatus status =
        switch (task.status()) {
          case success -> PlanNodeStatus.success;
          case cancelled -> PlanNodeStatus.cancelled;
          default -> PlanNodeStatus.failed;
        };
    String error =
        switch (status) {
          case failed -> task.error() == null ? "it failed" : task.error();
          case cancelled -> "its task was cancelled";
          default -> null;
        };
    Update update =
        new Update()
            .set(field(i, "status"), status)
            .set(field(i, "endedAt"), clock.instant())
            .set(field(i, "result"), task.result())
            .set(field(i, "error"), error);
    if (moveNode(plan, i, PlanNodeStatus.running, update)) {
      ledger.append(
          plan.chatId(),
          "plan_node_ended/" + node.taskId(),
          RunEvent.PLAN_NODE_ENDED,
          node.taskId(),
          task.subAgentId(),
          node.agent(),
          RunLedger.data(
              "planId", plan.id(), "node", node.id(), "status", status.name(), "error", error));
    }
    return true;
  }

  /**
   * Skips a pending node: a node it depends on did not succeed ({@code because}), or the plan was
   * cancelled (null).
   */
  private boolean skip(Plan plan, int i, @Nullable String because) {
    PlanNode node = plan.nodes().get(i);
    String reason =
        because == null
            ? "skipped: the plan was cancelled"
            : "skipped: node '" + because + "' did not succeed";
    Update update =
        new Update()
            .set(field(i, "status"), PlanNodeStatus.skipped)
            .set(field(i, "endedAt"), clock.instant())
            .set(field(i, "skippedBecause"), because)
            .set(field(i, "error"), reason);
    if (moveNode(plan, i, PlanNodeStatus.pending, update)) {
      ledger.append(
          plan.chatId(),
          "plan_node_skipped/" + node.taskId(),
          RunEvent.PLAN_NODE_SKIPPED,
          null,
          null,
          node.agent(),
          RunLedger.data("planId", plan.id(), "node", node.id(), "reason", reason));
    }
    return true;
  }

  /** Ends the plan once every node ended; returns it as it stands after. */
  private Plan endIfDone(Plan plan) {
    if (plan.status() != PlanStatus.running
        || !plan.nodes().stream().allMatch(n -> n.status().ended())) {
      return plan;
    }
    PlanStatus status = outcome(plan);
    Instant now = clock.instant();
    boolean ended =
        mongo
                .updateFirst(
                    Query.query(
                        Criteria.where("_id").is(plan.id()).and("status").is(PlanStatus.running)),
                    new Update().set("status", status).set("endedAt", now).set("updatedAt", now),
                    Plan.class)
                .getModifiedCount()
            == 1;
    if (ended) {
      ledger.append(
          plan.chatId(),
          "plan_end/" + plan.id(),
          RunEvent.PLAN_END,
          null,
          null,
          null,
          RunLedger.data("planId", plan.id(), "status", status.name()));
    }
    return mongo.findById(plan.id(), Plan.class);
  }

  /**
   * How a plan whose nodes all ended went: {@code success} when every node succeeded, else {@code
   * cancelled} when someone asked it to stop, else {@code partial} when some sink succeeded, else
   * {@code failed}.
   */
  static PlanStatus outcome(Plan plan) {
    if (plan.nodes().stream().allMatch(n -> n.status() == PlanNodeStatus.success)) {
      return PlanStatus.success;
    }
    if (plan.cancelRequested()) {
      return PlanStatus.cancelled;
    }
    return plan.sinks().stream().anyMatch(n -> n.status() == PlanNodeStatus.success)
        ? PlanStatus.partial
        : PlanStatus.failed;
  }

  /** Moves node {@code i} from {@code from}, only while the plan runs and the node is there. */
  private boolean moveNode(Plan plan, int i, PlanNodeStatus from, Update update) {
    return mongo
            .updateFirst(
                Query.query(
                    Criteria.where("_id")
                        .is(plan.id())
                        .and("status")
                        .is(PlanStatus.running)
                        .and(field(i, "status"))
                        .is(from)),
                update.set("updatedAt", clock.instant()),
                Plan.class)
            .getModifiedCount()
        == 1;
  }

  private static String field(int node, String name) {
    return "nodes." + node + "." + name;
  }

  /** The plans still running that nothing moved since {@code before}: a sweep's to move on. */
  public List<String> runningSince(Instant before, int limit) {
    Query query =
        Query.query(Criteria.where("status").is(PlanStatus.running).and("updatedAt").lt(before))
            .with(Sort.by("updatedAt"))
            .limit(limit);
    query.fields().include("_id");
    return mongo.find(query, Document.class, Collections.PLANS).stream()
        .map(d -> d.getString("_id"))
        .toList();
  }
}
