package dev.agentrt.notifier;

import dev.agentrt.agents.AskUser;
import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.events.TaskWaiting;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Exists;
import dev.agentrt.store.Ids;
import dev.agentrt.store.StaleTasks;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskEventIds;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import java.time.Clock;
import java.util.ArrayList;
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
 * Asks the questions whose {@code TaskWaiting} was lost: dead-lettered after MongoDB was away
 * longer than the listener retries (about 15 s), or never handled. For a task {@code waiting}
 * longer than {@code agentrt.notifier.sweep-grace}, the event is read back from what the agent loop
 * stored with it — its sub-agent's last assistant message, the {@code ask_user} call — with the id
 * the loop gave it ({@code TaskEventIds.waiting(answerId)}, agent-loop {@code OutcomeRecorder}); if
 * the chat has no question of that id, the listener's own handling posts it. The question's id
 * derives from the event's, so the event arriving later, a replay, or another notifier posts
 * nothing more. Approval requests are read back the same way, from the task's calls that await
 * approval.
 */
@Component
@EnableConfigurationProperties(NotifierProperties.class)
class UnaskedQuestionSweep {

  /** Waiting tasks one sweep looks at; the next sweep goes on after them. */
  static final int BATCH = 100;

  private static final Logger log = LoggerFactory.getLogger(UnaskedQuestionSweep.class);

  private final MongoTemplate mongo;
  private final TaskWaitingListener asking;
  private final StaleTasks waiting;
  private final NotifierProperties properties;
  private final Clock clock = Clock.systemUTC();

  UnaskedQuestionSweep(
      MongoTemplate mongo, TaskWaitingListener asking, NotifierProperties properties) {
    this.mongo = mongo;
    this.asking = asking;
    this.waiting = new StaleTasks(mongo, List.of(TaskStatus.waiting), BATCH);
    this.properties = properties;
  }

  @Scheduled(
      fixedDelayString = "${agentrt.notifier.sweep-interval:10s}",
      initialDelayString = "${agentrt.notifier.sweep-interval:10s}")
  void sweep() {
    for (Task task : waiting.next(null, clock.instant().minus(properties.sweepGrace()))) {
      try {
        List<TaskWaiting> events = new ArrayList<>(approvalsOf(task));
        waitingOf(task).ifPresent(events::add);
        for (TaskWaiting event : events) {
          if (!asked(event)) {
            log.info("asking the question of task {}: its TaskWaiting was lost", task.id());
            asking.ask(event);
          }
        }
      } catch (RuntimeException e) {
        log.warn("could not ask task {}'s question, the next sweep tries again: {}", task.id(), e);
      }
    }
  }

  private boolean asked(TaskWaiting event) {
    return Exists.any(
        mongo,
        Query.query(Criteria.where("_id").is(Ids.derived(event.eventId(), Questions.PURPOSE))),
        ChatMessage.class);
  }

  /**
   * The {@code TaskWaiting} the agent loop published for each call of the task that awaits a
   * person's approval, with the id it gave it ({@code TaskEventIds.awaitingApproval(toolCallId)}).
   */
  List<TaskWaiting> approvalsOf(Task task) {
    return mongo
        .find(
            Query.query(
                Criteria.where("taskId")
                    .is(task.id())
                    .and("status")
                    .is(ToolCallStatus.awaiting_approval)),
            ToolCall.class)
        .stream()
        .map(
            call ->
                TaskWaiting.approval(
                    TaskEventIds.awaitingApproval(call.id()),
                    call.createdAt(),
                    task.id(),
                    task.chatId(),
                    call.subAgentId(),
                    call.id(),
                    call.name(),
                    call.arguments()))
        .toList();
  }

  /**
   * The {@code TaskWaiting} the agent loop published when the task's sub-agent asked: empty when
   * its last assistant message is not a question.
   */
  Optional<TaskWaiting> waitingOf(Task task) {
    if (task.subAgentId() == null) {
      return Optional.empty();
    }
    SubAgentMessage last =
        mongo.findOne(
            Query.query(
                    Criteria.where("subAgentId")
                        .is(task.subAgentId())
                        .and("role")
                        .is(SubAgentMessage.ASSISTANT))
                .with(Sort.by(Sort.Direction.DESC, "seq"))
                .limit(1),
            SubAgentMessage.class);
    if (last == null) {
      return Optional.empty();
    }
    return last.toolCalls().stream()
        .filter(c -> ToolCatalog.ASK_USER.equals(c.name()))
        .findFirst()
        .map(
            call ->
                new TaskWaiting(
                    TaskEventIds.waiting(last.id()),
                    last.createdAt(),
                    task.id(),
                    task.chatId(),
                    task.subAgentId(),
                    AskUser.question(call.arguments(), last.content())));
  }
}
