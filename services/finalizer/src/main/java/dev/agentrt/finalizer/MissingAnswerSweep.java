package dev.agentrt.finalizer;

import dev.agentrt.store.ChatMessage;
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
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
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
    for (Task task : ended.next(now.minus(properties.lookback()), now.minus(properties.grace()))) {
      try {
        Optional<TaskOutcome> outcome = outcomeOf(task);
        if (outcome.isPresent() && !answered(task, outcome.get())) {
          log.info("answering task {}: its outcome event was lost", task.id());
          pending.offer(outcome.get());
        }
      } catch (RuntimeException e) {
        log.warn("could not answer task {}, the next sweep tries again: {}", task.id(), e);
      }
    }
  }

  /**
   * Whether the chat has the outcome's answer; for a child task, whether its caller has its result;
   * for a plan's node, whether its plan recorded its end; for a re-routed task, whether its
   * fallback task exists (the answer is that task's).
   */
  private boolean answered(Task task, TaskOutcome outcome) {
    if (Exists.any(
        mongo, Query.query(Criteria.where("_id").is(Task.rerouteId(task.id()))), Task.class)) {
      return true;
    }
    Optional<Plan> plan = plans.ofTask(task.id());
    if (plan.isPresent()) {
      return plan.get().nodes().stream()
          .anyMatch(n -> n.taskId().equals(task.id()) && n.status().ended());
    }
    if (task.delegation() != null) {
      return Exists.any(
          mongo,
          Query.query(
              Criteria.where("_id")
                  .is(DelegationReplies.messageId(task.delegation().toolCallId()))),
          SubAgentMessage.class);
    }
    return Exists.any(
        mongo,
        Query.query(Criteria.where("_id").is(FinalAnswers.idOf(outcome))),
        ChatMessage.class);
  }

  /**
   * The outcome its event told, with the event's id: empty when what the event was derived from is
   * not stored.
   */
  Optional<TaskOutcome> outcomeOf(Task task) {
    return switch (task.status()) {
      case cancelled ->
          Optional.of(
              new TaskOutcome.Failed(
                  TaskEventIds.cancelled(task.id()), task.id(), task.chatId(), CANCELLED));
      case failed ->
          task.subAgentId() == null
              ? Optional.of(failed(task, TaskEventIds.unknownAgent(task.id())))
              : last(task, SubAgentMessage.SYSTEM)
                  .filter(m -> !m.id().equals(Ids.derived(task.id(), "system-prompt")))
                  .map(failure -> failed(task, TaskEventIds.failed(failure.id())));
      case success ->
          last(task, SubAgentMessage.ASSISTANT)
              .map(
                  answer ->
                      new TaskOutcome.Succeeded(
                          TaskEventIds.completed(answer.id()),
                          task.id(),
                          task.chatId(),
                          task.result() == null ? "" : task.result()));
      default -> Optional.empty();
    };
  }

  private static TaskOutcome failed(Task task, String eventId) {
    return new TaskOutcome.Failed(
        eventId, task.id(), task.chatId(), task.error() == null ? "" : task.error());
  }

  /** The last message with this role in the conversation of the task's sub-agent. */
  private Optional<SubAgentMessage> last(Task task, String role) {
    if (task.subAgentId() == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(
        mongo.findOne(
            Query.query(Criteria.where("subAgentId").is(task.subAgentId()).and("role").is(role))
                .with(Sort.by(Sort.Direction.DESC, "seq"))
                .limit(1),
            SubAgentMessage.class));
  }
}
