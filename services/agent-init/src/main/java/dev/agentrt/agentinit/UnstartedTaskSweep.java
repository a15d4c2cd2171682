package dev.agentrt.agentinit;

import dev.agentrt.events.TaskCreated;
import dev.agentrt.store.StaleTasks;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskEventIds;
import dev.agentrt.store.TaskStatus;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Starts the tasks whose {@code TaskCreated} was lost: dead-lettered after MongoDB was away longer
 * than the listener retries (about 15 s), or never handled. A task still {@code created} after
 * {@code agentrt.agent-init.sweep-grace} is started as its event would have started it ({@link
 * SubAgentStarter}, with the event's own id), so a start the event makes as well, or another copy
 * of this service, is the same start: the sub-agent and messages have ids derived from the task,
 * the task moves {@code created → running} once.
 */
@Component
@EnableConfigurationProperties(AgentInitProperties.class)
class UnstartedTaskSweep {

  /** Tasks one sweep starts at most; the next sweep goes on. */
  static final int BATCH = 100;

  private static final Logger log = LoggerFactory.getLogger(UnstartedTaskSweep.class);

  private final SubAgentStarter starter;
  private final StaleTasks unstarted;
  private final AgentInitProperties properties;
  private final Clock clock = Clock.systemUTC();

  UnstartedTaskSweep(MongoTemplate mongo, SubAgentStarter starter, AgentInitProperties properties) {
    this.starter = starter;
    this.unstarted = new StaleTasks(mongo, List.of(TaskStatus.created), BATCH);
    this.properties = properties;
  }

  @Scheduled(
      fixedDelayString = "${agentrt.agent-init.sweep-interval:10s}",
      initialDelayString = "${agentrt.agent-init.sweep-interval:10s}")
  void sweep() {
    for (Task task : unstarted.next(null, clock.instant().minus(properties.sweepGrace()))) {
      try {
        log.info("starting task {}: still created, its TaskCreated was lost", task.id());
        starter.start(createdOf(task));
      } catch (RuntimeException e) {
        log.warn(
            "could not start task {}, the next sweep tries again: {}", task.id(), e.toString());
      }
    }
  }

  /**
   * The {@code TaskCreated} the orchestrator (or, for a child task, the agent loop) wrote with the
   * task: the same id, the same fields.
   */
  static TaskCreated createdOf(Task task) {
    Task.Delegation delegation = task.delegation();
    return new TaskCreated(
        TaskEventIds.created(task.id()),
        task.createdAt(),
        task.id(),
        task.chatId(),
        task.agent(),
        task.instruction(),
        delegation == null ? null : delegation.parentTaskId(),
        delegation == null ? null : delegation.depth(),
        delegation == null ? null : delegation.toolCallId(),
        null,
        new TaskCreated.Start(task.model()));
  }
}
