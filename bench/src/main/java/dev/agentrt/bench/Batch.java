package dev.agentrt.bench;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * One batch of sub-agents, each in its own chat: the person's messages posted at once, then waited
 * for until every task has ended and its answer is in the chat (the finalizer's), so no batch's
 * work goes on behind the next one. Afterwards it holds what the fake model recorded and what the
 * runtime stored (tasks, answers, tool calls, tool messages), from which the scenarios take their
 * figures.
 */
final class Batch {

  private static final Duration POLL = Duration.ofMillis(50);

  /** A task as stored, with its script. */
  record TaskRun(String taskId, Script script, String status, long createdAt, long endedAt) {}

  /**
   * What the runtime stored about a tool call (epoch ms); {@code startedAt} = finished − latency.
   */
  record ToolCallRun(long createdAt, long startedAt, long finishedAt) {}

  final String group;
  final List<Script> scripts;
  private final List<String> chats;
  long postedAt;
  long postsDoneAt;
  long lastAnsweredAt;
  final List<TaskRun> tasks = new ArrayList<>();
  final Map<String, List<FakeOpenAi.Turn>> turnsById = new HashMap<>();
  final Map<String, List<ToolCallRun>> toolCallsById = new HashMap<>();
  final Map<String, List<Long>> toolResultsById = new HashMap<>();

  private Batch(String group, List<Script> scripts, List<String> chats) {
    this.group = group;
    this.scripts = scripts;
    this.chats = chats;
  }

  /**
   * Runs the scripts, waits (at most {@code timeout}) until every task has ended, and reads what
   * the runtime stored ({@link #collect}).
   *
   * @throws IllegalStateException if a service died or time ran out, saying how far it got
   */
  static Batch run(
      BenchStack stack, ChatDriver driver, String group, List<Script> scripts, Duration timeout) {
    Batch batch = ended(stack, driver, group, scripts, timeout);
    batch.collect(stack);
    return batch;
  }

  /**
   * {@link #run} until every task has ended and its answer is in the chat; what the runtime stored
   * is not read yet. A window of CPU time ends here: the reads of {@link #collect} are the bench's,
   * not the runtime's, and read whole collections the runtime reads by other keys (some 0.4–1 ms of
   * CPU per step in scenario 3 after the warm-up).
   */
  static Batch ended(
      BenchStack stack, ChatDriver driver, String group, List<Script> scripts, Duration timeout) {
    List<String> chats = driver.createChats(scripts.size());
    Batch batch = new Batch(group, scripts, chats);
    stack.model.reset();
    stack.slow.reset();
    batch.postedAt = System.currentTimeMillis();
    driver.post(chats, scripts.stream().map(Script::instruction).toList());
    batch.postsDoneAt = System.currentTimeMillis();
    long deadline = System.currentTimeMillis() + timeout.toMillis();
    Set<String> ids = new HashSet<>(scripts.stream().map(Script::id).toList());
    Map<String, Integer> rounds = new HashMap<>();
    scripts.forEach(s -> rounds.put(s.id(), s.rounds()));
    while (true) {
      long answered =
          stack.model.turns().stream()
              .filter(t -> ids.contains(t.id()) && t.round() == rounds.get(t.id()))
              .count();
      long ended =
          answered < ids.size()
              ? 0
              : count(
                  stack.db().getCollection("tasks"),
                  Filters.and(
                      Filters.in("chatId", chats),
                      Filters.in("status", List.of("success", "failed", "cancelled"))));
      if (ended == ids.size() && answers(stack, chats) == ids.size()) {
        break;
      }
      if (!stack.deadServices().isEmpty()) {
        throw new IllegalStateException("services died: " + stack.deadServices());
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            "batch %s: within %d s, %d of %d sub-agents gave their final answer, %d of their"
                    .formatted(group, timeout.toSeconds(), answered, ids.size(), ended)
                + " tasks ended, %d answers are in the chats".formatted(answers(stack, chats)));
      }
      sleep(POLL);
    }
    return batch;
  }

  /** How many tasks' answers these chats hold. */
  private static long answers(BenchStack stack, List<String> chats) {
    return count(stack.db().getCollection("chat_messages"), answersIn(chats));
  }

  /**
   * The documents matching {@code filter}, counted from their ids. Not {@code countDocuments}: that
   * is an aggregation, which the embedded server answers by reading the whole collection, and this
   * process's CPU counts in every figure per step.
   */
  static long count(MongoCollection<Document> collection, Bson filter) {
    long count = 0;
    for (Document ignored : collection.find(filter).projection(Projections.include("_id"))) {
      count++;
    }
    return count;
  }

  /** The tasks' answers in these chats: assistant messages about a task (the finalizer's). */
  static Bson answersIn(List<String> chats) {
    return Filters.and(
        Filters.in("chatId", chats), Filters.eq("role", "assistant"), Filters.ne("taskId", null));
  }

  /** Reads what the runtime stored about the batch's chats, once it has {@link #ended}. */
  void collect(BenchStack stack) {
    for (Document answer : stack.db().getCollection("chat_messages").find(answersIn(chats))) {
      lastAnsweredAt = Math.max(lastAnsweredAt, millis(answer.get("createdAt")));
    }
    Map<String, Script> byId = new HashMap<>();
    scripts.forEach(s -> byId.put(s.id(), s));
    Map<String, String> idOfTask = new HashMap<>();
    for (Document task : stack.db().getCollection("tasks").find(Filters.in("chatId", chats))) {
      Script script = Script.in(task.getString("instruction")).orElseThrow();
      idOfTask.put(task.getString("_id"), script.id());
      tasks.add(
          new TaskRun(
              task.getString("_id"),
              byId.get(script.id()),
              task.getString("status"),
              millis(task.get("createdAt")),
              millis(task.get("updatedAt"))));
    }
    List<String> taskIds = List.copyOf(idOfTask.keySet());
    for (Document call :
        stack
            .db()
            .getCollection("sub_agent_tool_calls")
            .find(Filters.in("taskId", taskIds))
            .sort(Sorts.ascending("createdAt", "modelCallId"))) {
      long finished = millis(call.get("updatedAt"));
      Number latency = call.get("latencyMs", Number.class);
      toolCallsById
          .computeIfAbsent(idOfTask.get(call.getString("taskId")), k -> new ArrayList<>())
          .add(
              new ToolCallRun(
                  millis(call.get("createdAt")),
                  finished - (latency == null ? 0 : latency.longValue()),
                  finished));
    }
    for (Document message :
        stack
            .db()
            .getCollection("sub_agent_messages")
            .find(Filters.and(Filters.in("taskId", taskIds), Filters.eq("role", "tool")))
            .sort(Sorts.ascending("seq"))) {
      toolResultsById
          .computeIfAbsent(idOfTask.get(message.getString("taskId")), k -> new ArrayList<>())
          .add(millis(message.get("createdAt")));
    }
    for (FakeOpenAi.Turn turn : stack.model.turns()) {
      if (byId.containsKey(turn.id())) {
        turnsById.computeIfAbsent(turn.id(), k -> new ArrayList<>()).add(turn);
      }
    }
    turnsById
        .values()
        .forEach(l -> l.sort(java.util.Comparator.comparingInt(FakeOpenAi.Turn::round)));
  }

  long succeeded() {
    return tasks.stream().filter(t -> t.status().equals("success")).count();
  }

  long lastEndedAt() {
    return tasks.stream().mapToLong(TaskRun::endedAt).max().orElse(postedAt);
  }

  /** The turn of that round, the first one if the model was asked twice (a retry). */
  FakeOpenAi.Turn turn(String id, int round) {
    return turnsById.getOrDefault(id, List.of()).stream()
        .filter(t -> t.round() == round)
        .findFirst()
        .orElse(null);
  }

  private static long millis(Object value) {
    return value instanceof Date d ? d.getTime() : 0;
  }

  static void sleep(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
