package dev.agentrt.agentinit;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.events.TaskFailed;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentIds;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskCancellation;
import dev.agentrt.store.TaskEventIds;
import dev.agentrt.store.TaskStatus;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.FindAndModifyOptions;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

/**
 * Starts the sub-agent of a new task: creates it, links the task to it, and writes its first two
 * messages — the agent's system prompt and the task's instruction as the user's message, whose
 * event wakes the agent loop. Every step is idempotent (ids derive from the task; the task moves
 * {@code created → running} once), so a redelivered event completes what a crash interrupted. A
 * task the orchestrator started is not read first: its event carries what the start needs ({@link
 * TaskCreated#start}), and the link is the check that it is still to start; a child task is read,
 * for its caller and its tree.
 *
 * <p>A task cancelled before it started never starts, whatever the interleaving with its
 * cancellation: the messages are written only after the task moved {@code created → running} for
 * this sub-agent, and only while the sub-agent is {@code active}. A task cancelled first cannot be
 * linked, and its sub-agent, if this start had made it already, is cancelled here; a task cancelled
 * after it was linked has its sub-agent cancelled by the cancellation, which then finds it. A child
 * task ({@code message_agent}) whose caller ended before it started is cancelled instead.
 */
@Component
class SubAgentStarter {

  private static final List<TaskStatus> LIVE =
      List.of(TaskStatus.created, TaskStatus.running, TaskStatus.waiting);

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final SubAgentConversations conversations;
  private final AgentCatalog agents;
  private final Outbox outbox;
  private final EventCodec codec;
  private final RunLedger ledger;
  private final CancelledSubAgents cancelled;
  private final TaskCancellation cancellation;
  private final Clock clock = Clock.systemUTC();

  SubAgentStarter(
      MongoTemplate mongo,
      BulkWrites writes,
      SubAgentConversations conversations,
      AgentCatalog agents,
      Outbox outbox,
      EventCodec codec,
      RunLedger ledger,
      CancelledSubAgents cancelled) {
    this.mongo = mongo;
    this.writes = writes;
    this.conversations = conversations;
    this.agents = agents;
    this.outbox = outbox;
    this.codec = codec;
    this.ledger = ledger;
    this.cancelled = cancelled;
    this.cancellation = new TaskCancellation(mongo, outbox, codec, ledger);
  }

  void start(TaskCreated created) {
    Instant now = clock.instant();
    Optional<AgentDefinition> agent = agents.find(created.agent());
    if (agent.isEmpty()) {
      failUnknownAgent(created, now);
      return;
    }
    Task task = null;
    if (created.parentTaskId() != null || created.start() == null) {
      task = mongo.findById(created.taskId(), Task.class);
      if (task == null || (task.status() != TaskStatus.created && task.subAgentId() == null)) {
        return; // cancelled (or ended) before it started: it never will
      }
      if (task.status() == TaskStatus.created && callerEnded(task)) {
        cancellation.cancel(task.id()); // created → cancelled, with its TaskCancelled
        return;
      }
    }
    SubAgent subAgent = subAgentOf(created, task, now);
    if (!claim(created.taskId(), subAgent, now)) {
      cancelled.stop(created.taskId(), now);
      return;
    }
    String systemPromptId = Ids.derived(created.taskId(), "system-prompt");
    String systemPrompt = AgentCatalog.systemPrompt(agent.get());
    String instructionId = Ids.derived(created.taskId(), "instruction");
    Optional<SubAgentMessage> instruction =
        appendWhileActive(
            subAgent,
            new NewMessage(
                systemPromptId, SubAgentMessage.SYSTEM, systemPrompt, List.of(), null, List.of()),
            new NewMessage(
                instructionId,
                SubAgentMessage.USER,
                created.instruction(),
                List.of(),
                null,
                List.of(
                    OutboxEntry.of(
                        SubAgentConversations.addedStarting(
                            subAgent,
                            systemPromptId,
                            systemPrompt,
                            instructionId,
                            created.instruction(),
                            now),
                        codec))),
            now);
    if (instruction.isEmpty()) {
      return;
    }
    ledger.append(
        subAgent,
        "run_start/" + subAgent.id(),
        RunEvent.RUN_START,
        RunLedger.data("agent", subAgent.agent(), "task", created.instruction()));
    outbox.publish(
        Collections.SUB_AGENT_MESSAGES,
        instruction.get().id(),
        instruction.get().outbox(),
        ledger.positionHeader(subAgent.chatId()));
  }

  /**
   * Whether the task is a child whose caller ended (cancelled, or failed by a limit) before it
   * started. A cancellation of the caller marks it first and looks for its children after; the
   * child was stored before this start reads its caller. So a child that the cancellation's look
   * missed finds its caller cancelled here: no child outlives a cancelled caller.
   */
  private boolean callerEnded(Task task) {
    if (task.delegation() == null) {
      return false;
    }
    Task caller = mongo.findById(task.delegation().parentTaskId(), Task.class);
    return caller == null || !LIVE.contains(caller.status());
  }

  /**
   * Links the task to its sub-agent, {@code created → running}, by a write that matches only a
   * {@code created} task; the task's usage is kept apart from its chat's as its sub-agent's is
   * ({@link Task#usageApart}: the sub-agent found, made before, may not keep it apart).
   *
   * @return true when the task is this sub-agent's and not cancelled (linked now, or by an earlier
   *     delivery of the event); false when it was cancelled (or ended) before it was linked, or
   *     after
   */
  private boolean claim(String taskId, SubAgent subAgent, Instant now) {
    Task linked =
        mongo.findAndModify(
            Query.query(Criteria.where("_id").is(taskId).and("status").is(TaskStatus.created)),
            new Update()
                .set("subAgentId", subAgent.id())
                .set("status", TaskStatus.running)
                .set(
                    Task.USAGE_APART,
                    subAgent.settings() == null ? null : subAgent.settings().usageApart())
                .set("startedAt", now)
                .set("updatedAt", now),
            FindAndModifyOptions.options().returnNew(true),
            Task.class);
    Task task = linked != null ? linked : mongo.findById(taskId, Task.class);
    return task != null
        && subAgent.id().equals(task.subAgentId())
        && task.status() != TaskStatus.cancelled;
  }

  /**
   * Appends the system prompt and the instruction while the sub-agent is {@code active} (the check
   * and the two places taken are one write, both messages one insert): a sub-agent cancelled
   * meanwhile gets nothing the loop would answer.
   *
   * @return the instruction as stored; empty when the sub-agent is no longer active
   */
  private Optional<SubAgentMessage> appendWhileActive(
      SubAgent subAgent, NewMessage systemPrompt, NewMessage instruction, Instant now) {
    OptionalLong first =
        conversations.takeSeqsWhileActive(subAgent.id(), 2, subAgent.messageCount(), now);
    if (first.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        conversations
            .insertAllAt(
                SubAgentIds.of(subAgent),
                first.getAsLong(),
                List.of(systemPrompt, instruction),
                now)
            .getLast()
            .message());
  }

  /**
   * The task's sub-agent, created with what was chosen for the task and its chat (the model, the
   * limits) and, for a child task, the root of its tree and its caller's deadline, by which every
   * run of it ends (so the deadline holds for the whole tree), so that its turns need not read
   * them. The chat's limits come with the event when its creator read them; else from the chat.
   */
  private SubAgent subAgentOf(TaskCreated created, @Nullable Task task, Instant now) {
    Task.Delegation delegation = task == null ? null : task.delegation();
    SubAgent fresh =
        new SubAgent(
            Ids.derived(created.taskId(), "sub-agent"),
            created.taskId(),
            created.chatId(),
            created.agent(),
            SubAgentStatus.active,
            0,
            null,
            now,
            now,
            null,
            new SubAgent.Settings(
                task != null ? task.model() : created.start().model(),
                created.chatLimits() != null
                    ? ChatLimits.of(created.chatLimits())
                    : chatLimits(created.chatId()),
                delegation == null ? null : delegation.rootTaskId(),
                delegation == null ? null : delegation.deadline(),
                true));
    return writes.insertOrFind(fresh).document();
  }

  private @Nullable ChatLimits chatLimits(String chatId) {
    Query limits = Query.query(Criteria.where("_id").is(chatId));
    limits.fields().include("limits");
    Chat chat = mongo.findOne(limits, Chat.class);
    return chat == null ? null : chat.limits();
  }

  /** A task for an agent nobody declared ends at once, visibly. */
  private void failUnknownAgent(TaskCreated created, Instant now) {
    String error =
        "no agent named '"
            + created.agent()
            + "'; known agents: "
            + agents.all().stream().map(AgentDefinition::name).toList();
    OutboxEntry failed =
        OutboxEntry.of(
            new TaskFailed(
                TaskEventIds.unknownAgent(created.taskId()),
                now,
                created.taskId(),
                created.chatId(),
                null,
                "unknown_agent",
                error),
            codec);
    mongo.updateFirst(
        Query.query(
            Criteria.where("_id").is(created.taskId()).and("status").is(TaskStatus.created)),
        new Update()
            .set("status", TaskStatus.failed)
            .set("error", error)
            .set(Task.FAILURE_REASON, "unknown_agent")
            .set("updatedAt", now)
            .push("outbox", failed),
        Task.class);
    ledger.append(
        created.chatId(),
        "run_end/" + created.taskId() + "/unknown-agent",
        RunEvent.RUN_END,
        created.taskId(),
        null,
        created.agent(),
        RunLedger.data("status", "failed", "reason", "unknown_agent", "result", error));
    Task task = mongo.findById(created.taskId(), Task.class);
    if (task != null) {
      outbox.publish(Collections.TASKS, task.id(), task.outbox());
    }
  }
}
