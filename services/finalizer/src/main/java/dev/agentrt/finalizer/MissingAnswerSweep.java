package dev.agentrt.finalizer;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import dev.agentrt.store.Collections;
import dev.agentrt.store.DelegationReplies;
import dev.agentrt.store.Exists;
import dev.agentrt.store.Ids;
import dev.agentrt.store.Plan;
import dev.agentrt.store.Plans;
import dev.agentrt.store.StaleTasks;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskEventIds;
import dev.agentrt.store.TaskStatus;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Answers the ended tasks whose outcome event was lost: dead-lettered after MongoDB was away longer
 * than the listener retries (about 15 s), or never handled. For a task that ended ({@code success},
 * {@code failed}, {@code cancelled}) between {@code lookback} and {@code grace} ago, the outcome is
 * read back from what was stored with its event, with the event's own id (as agent-loop's {@code
 * OutcomeRecorder}, agent-init and libs/store {@code TaskCancellation} derive it); if the chat has
 * no answer of that outcome, it is offered to {@link PendingAnswers} as the listener offers it. The
 * answer's id derives from the event's, so the event arriving later, a replay, or another finalizer
 * writes nothing more.
 *
 * <p>Nearly every ended task was answered, and a sweep looks at up to {@value #BATCH} of them every
 * {@code sweep-interval}, over and over within the lookback: it reads what it needs for a whole
 * batch at once (the conversations' last answers and failures, the re-routes, the plans, the
 * callers' results, the chat's answers; five reads at most, however many tasks), not a few reads
 * per task.
 */
@Component
@EnableConfigurationProperties(MissingAnswerProperties.class)
class MissingAnswerSweep {

  /** Ended tasks one sweep looks at; the next sweep goes on after them. */
  static final int BATCH = 100;

  /** The text of a cancelled task's outcome read back (its progress went with the lost event). */
  static final String CANCELLED = "it was cancelled at your request.";

  private static final Logger log = LoggerFactory.getLogger(MissingAnswerSweep.class);

  private final MongoTemplate mongo;
  private final PendingAnswers pending;
  private final Plans plans;
  private final StaleTasks ended;
  private final MissingAnswerProperties properties;
  private final Clock clock = Clock.systemUTC();

  MissingAnswerSweep(
      MongoTemplate mongo,
      PendingAnswers pending,
      Plans plans,
      MissingAnswerProperties properties) {
    this.mongo = mongo;
    this.plans = plans;
    this.pending = pending;
    this.ended =
        new StaleTasks(
            mongo, List.of(TaskStatus.success, TaskStatus.failed, TaskStatus.cancelled), BATCH);
    this.properties = properties;
  }

  @Scheduled(
      fixedDelayString = "${agentrt.finalizer.missing-answers.sweep-interval:10s}",
      initialDelayString = "${agentrt.finalizer.missing-answers.sweep-interval:10s}")
  void sweep() {
    Instant now = clock.instant();
    List<Task> tasks = ended.next(now.minus(properties.lookback()), now.minus(properties.grace()));
    List<TaskOutcome> unanswered;
    try {
      unanswered = unanswered(tasks);
    } catch (RuntimeException e) {
      log.warn("could not look at {} ended tasks, a later sweep does: {}", tasks.size(), e);
      return;
    }
    for (TaskOutcome outcome : unanswered) {
      try {
        log.info("answering task {}: its outcome event was lost", outcome.taskId());
        pending.offer(outcome);
      } catch (RuntimeException e) {
        log.warn("could not answer task {}, a later sweep tries again: {}", outcome.taskId(), e);
      }
    }
  }

  /**
   * The outcomes of these tasks that were not carried out: the chat lacks the outcome's answer; for
   * a child task, its caller lacks its result; for a plan's node, its plan did not record its end;
   * a re-routed task is carried out by its fallback task's existence (the answer is that task's).
   * The same few reads for the whole batch, whatever its size: a sweep's cost does not grow with
   * the tasks that ended, nearly all of them answered.
   */
  List<TaskOutcome> unanswered(List<Task> tasks) {
    List<Ended> outcomes = outcomesOf(tasks);
    if (outcomes.isEmpty()) {
      return List.of();
    }
    Set<String> rerouted =
        Exists.among(
            mongo,
            Collections.TASKS,
            outcomes.stream().map(e -> Task.rerouteId(e.task().id())).toList());
    Map<String, Plan> plansOf =
        plans.ofTasks(outcomes.stream().map(e -> e.task().id()).collect(Collectors.toSet()));
    List<Ended> others =
        outcomes.stream().filter(e -> !plansOf.containsKey(e.task().id())).toList();
    Set<String> delivered =
        Exists.among(
            mongo,
            Collections.SUB_AGENT_MESSAGES,
            others.stream().map(Ended::reply).filter(Objects::nonNull).toList());
    Set<String> answered =
        Exists.among(
            mongo,
            Collections.CHAT_MESSAGES,
            others.stream().filter(e -> e.reply() == null).map(Ended::answer).toList());
    List<TaskOutcome> unanswered = new ArrayList<>();
    for (Ended ended : outcomes) {
      String id = ended.task().id();
      Plan plan = plansOf.get(id);
      boolean done =
          rerouted.contains(Task.rerouteId(id))
              || (plan != null
                  ? plan.nodes().stream().anyMatch(n -> n.taskId().equals(id) && n.status().ended())
                  : ended.reply() != null
                      ? delivered.contains(ended.reply())
                      : answered.contains(ended.answer()));
      if (!done) {
        unanswered.add(ended.outcome());
      }
    }
    return unanswered;
  }

  /** An ended task and the outcome its event told. */
  private record Ended(Task task, TaskOutcome outcome) {

    /** The id of the result a child task's caller gets; null for a task that is no child. */
    @Nullable String reply() {
      return task.delegation() == null
          ? null
          : DelegationReplies.messageId(task.delegation().toolCallId());
    }

    /** The id of the outcome's answer in the chat. */
    String answer() {
      return FinalAnswers.idOf(outcome);
    }
  }

  /**
   * The outcome each task's event told, with the event's id, in the tasks' order; a task is left
   * out when what its event was derived from is not stored. One read of the conversations' last
   * answers and failures for the whole batch.
   */
  private List<Ended> outcomesOf(List<Task> tasks) {
    Map<String, Document> last = lastMessages(tasks);
    List<Ended> outcomes = new ArrayList<>();
    for (Task task : tasks) {
      Function<String, Optional<String>> lastId =
          role ->
              Optional.ofNullable(last.get(key(task.subAgentId(), role)))
                  .map(m -> String.valueOf(m.get("_id")));
      Optional<TaskOutcome> outcome =
          switch (task.status()) {
            case cancelled ->
                Optional.of(
                    new TaskOutcome.Failed(
                        TaskEventIds.cancelled(task.id()), task.id(), task.chatId(), CANCELLED));
            case failed ->
                task.subAgentId() == null
                    ? Optional.of(failed(task, TaskEventIds.unknownAgent(task.id())))
                    : lastId
                        .apply(SubAgentMessage.SYSTEM)
                        .filter(id -> !id.equals(Ids.derived(task.id(), "system-prompt")))
                        .map(id -> failed(task, TaskEventIds.failed(id)));
            case success ->
                lastId
                    .apply(SubAgentMessage.ASSISTANT)
                    .map(
                        id ->
                            new TaskOutcome.Succeeded(
                                TaskEventIds.completed(id),
                                task.id(),
                                task.chatId(),
                                task.result() == null ? "" : task.result()));
            default -> Optional.empty();
          };
      outcome.ifPresent(o -> outcomes.add(new Ended(task, o)));
    }
    return outcomes;
  }

  /**
   * The last system and the last assistant message of each conversation of these tasks that ended
   * with a sub-agent, by {@link #key}: one read of those messages' ids, roles and places.
   */
  private Map<String, Document> lastMessages(List<Task> tasks) {
    List<String> subAgents =
        tasks.stream()
            .filter(t -> t.status() == TaskStatus.success || t.status() == TaskStatus.failed)
            .map(Task::subAgentId)
            .filter(Objects::nonNull)
            .toList();
    Map<String, Document> last = new HashMap<>();
    if (subAgents.isEmpty()) {
      return last;
    }
    mongo
        .getCollection(Collections.SUB_AGENT_MESSAGES)
        .find(
            Filters.and(
                Filters.in("subAgentId", subAgents),
                Filters.in("role", SubAgentMessage.SYSTEM, SubAgentMessage.ASSISTANT)))
        .projection(Projections.include("_id", "subAgentId", "role", "seq"))
        .forEach(
            m ->
                last.merge(
                    key(m.getString("subAgentId"), m.getString("role")),
                    m,
                    (a, b) -> seq(a) >= seq(b) ? a : b));
    return last;
  }

  private static String key(String subAgentId, String role) {
    return subAgentId + "/" + role;
  }

  private static long seq(Document message) {
    return ((Number) message.get("seq")).longValue();
  }

  private static TaskOutcome failed(Task task, String eventId) {
    return new TaskOutcome.Failed(
        eventId, task.id(), task.chatId(), task.error() == null ? "" : task.error());
  }
}
