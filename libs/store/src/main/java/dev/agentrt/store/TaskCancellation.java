package dev.agentrt.store;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCancelled;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.FindAndModifyOptions;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * Cancels a task at the person's request (the orchestrator's cancel API), and the running subtree
 * of a task that failed (the finalizer, on {@code TaskFailed}): the task and its sub-agent become
 * {@code cancelled} (a conditional update, once), so the loop schedules no further model turn.
 * {@code TaskCancelled}, in the task's outbox, tells agent-loop and tool-runner, which stop the
 * model call and the tools in flight at once (the lease of a turn is not renewed either once its
 * sub-agent is cancelled); the finalizer, which says so in the chat with what was done so far; and
 * agent-init, which cancels the sub-agent too (for a cancellation that died between its two
 * writes).
 *
 * <p>Safe against a concurrent start (agent-init): the task is cancelled only while {@code
 * created}, {@code running} or {@code waiting}, and its sub-agent is found by the task, whether or
 * not the start has linked it yet. A start that links the task first has its sub-agent cancelled
 * here; a start that comes second cannot link a cancelled task and cancels its own sub-agent.
 *
 * <p>A task's whole subtree goes with it: every child task its agent started with {@code
 * message_agent}, and theirs, is cancelled the same way, so no descendant calls the model again;
 * each child's {@code TaskCancelled} fails its parent's pending call with {@code cancelled} (the
 * finalizer delivers it). Cancelling an ended task again cancels what is left of its subtree.
 */
public class TaskCancellation {

  private static final List<TaskStatus> CANCELLABLE =
      List.of(TaskStatus.created, TaskStatus.running, TaskStatus.waiting);

  /** What became of a request to cancel. */
  public sealed interface Result {
    record Cancelled(Task task) implements Result {}

    record AlreadyEnded(Task task) implements Result {}

    record NotFound() implements Result {}
  }

  private final MongoTemplate mongo;
  private final Outbox outbox;
  private final EventCodec codec;
  private final RunLedger ledger;
  private final Clock clock = Clock.systemUTC();

  public TaskCancellation(MongoTemplate mongo, Outbox outbox, EventCodec codec, RunLedger ledger) {
    this.mongo = mongo;
    this.outbox = outbox;
    this.codec = codec;
    this.ledger = ledger;
  }

  public Result cancel(String taskId) {
    Task task = mongo.findById(taskId, Task.class);
    if (task == null) {
      return new Result.NotFound();
    }
    Instant now = clock.instant();
    String progress = progressOf(task);
    OutboxEntry cancelled =
        OutboxEntry.of(
            new TaskCancelled(
                TaskEventIds.cancelled(taskId),
                now,
                taskId,
                task.chatId(),
                task.subAgentId(),
                progress),
            codec);
    Task stored =
        mongo.findAndModify(
            Query.query(Criteria.where("_id").is(taskId).and("status").in(CANCELLABLE)),
            new Update()
                .set("status", TaskStatus.cancelled)
                .set("updatedAt", now)
                .set("endedAt", now)
                .push("outbox", cancelled),
            FindAndModifyOptions.options().returnNew(true),
            Task.class);
    if (stored == null) {
      Task ended = mongo.findById(taskId, Task.class);
      if (ended != null && ended.status() == TaskStatus.cancelled) {
        stopSubAgent(taskId, now); // again: a cancellation may have died before it
      }
      cancelChildrenOf(taskId);
      return new Result.AlreadyEnded(ended);
    }
    stopSubAgent(taskId, now);
    cancelChildrenOf(taskId);
    ledger.append(
        task.chatId(),
        "run_end/" + taskId + "/cancelled",
        RunEvent.RUN_END,
        taskId,
        stored.subAgentId(),
        task.agent(),
        RunLedger.data("status", "cancelled", "reason", "cancelled", "result", progress));
    outbox.publishOrLeaveToRelay(Collections.TASKS, taskId, stored.outbox());
    return new Result.Cancelled(stored);
  }

  /**
   * Cancels the child tasks still going, and their subtrees: for a task that ended otherwise than
   * by a cancellation (failed), so that none of its descendants calls the model for a dead tree.
   * Safe to repeat.
   */
  public void cancelChildrenOf(String taskId) {
    mongo
        .find(
            Query.query(
                Criteria.where("delegation.parentTaskId").is(taskId).and("status").in(CANCELLABLE)),
            Task.class)
        .forEach(child -> cancel(child.id()));
  }

  /** Cancels the task's sub-agent, even one a start has made but not linked yet. */
  private void stopSubAgent(String taskId, Instant now) {
    SubAgentCancellation.cancelSubAgentOf(mongo, ledger, taskId, now);
  }

  /** What the sub-agent had done: its turns, its tool calls, its last words. */
  private String progressOf(Task task) {
    if (task.subAgentId() == null) {
      return "It had not started yet.";
    }
    Query ofSubAgent = Query.query(Criteria.where("subAgentId").is(task.subAgentId()));
    List<SubAgentMessage> answers =
        mongo.find(
            Query.query(
                    Criteria.where("subAgentId")
                        .is(task.subAgentId())
                        .and("role")
                        .is(SubAgentMessage.ASSISTANT))
                .with(Sort.by("seq")),
            SubAgentMessage.class);
    long toolCalls = mongo.count(ofSubAgent, ToolCall.class);
    String progress =
        "It had taken "
            + answers.size()
            + " model turn(s) and made "
            + toolCalls
            + " tool call(s).";
    return answers.stream()
        .map(SubAgentMessage::content)
        .filter(c -> c != null && !c.isBlank())
        .reduce((first, second) -> second)
        .map(last -> progress + " Its last words: " + last)
        .orElse(progress);
  }
}
