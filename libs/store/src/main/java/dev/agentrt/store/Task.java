package dev.agentrt.store;

import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.platform.outbox.OutboxEntry;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.data.annotation.PersistenceCreator;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/**
 * Work the orchestrator gave an agent on behalf of a chat.
 *
 * @param model the model its sub-agent and its final answer use, chosen for the message or the chat
 *     that started it; null: the agent's model, else the default model
 * @param usage its sub-agent's stored turns and its final answers
 * @param delegation for a child task (another agent's {@code message_agent} call started it): who
 *     asked, and whose call its next outcome answers; null for a task the orchestrator started
 * @param startedAt when its sub-agent was put on it ({@code created → running}), or null before
 * @param endedAt when it last ended ({@code success}, {@code failed}, {@code cancelled}), or null
 * @param routing why the orchestrator chose its agent; null for a child task and for tasks stored
 *     before routing was recorded
 * @param failureReason when it failed, why: the stable code its {@code TaskFailed} carried ({@code
 *     model_error}, {@code step_limit_exceeded}, …); else null
 * @param planNode whether a plan started it, as one of its nodes (the plan names the task); null
 *     for tasks stored before tasks said so, whose plan, if any, is looked up
 * @param usageApart whether its turns and answers are summed in {@link #usage} only, not in its
 *     chat's too: the chat's usage is then read as the chat's own sums plus those of its tasks that
 *     say this. Set as its sub-agent is put on it (whose settings say the same); null for a task
 *     started before, whose turns its chat's sums hold as well
 */
@Document(Collections.TASKS)
public record Task(
    @MongoId(FieldType.STRING) String id,
    String chatId,
    String type,
    String agent,
    String instruction,
    @Nullable String model,
    TaskStatus status,
    @Nullable String subAgentId,
    @Nullable String result,
    @Nullable String error,
    @Nullable Usage usage,
    Instant createdAt,
    Instant updatedAt,
    List<OutboxEntry> outbox,
    @Nullable Delegation delegation,
    @Nullable Instant startedAt,
    @Nullable Instant endedAt,
    @Nullable Routing routing,
    @Nullable String failureReason,
    @Nullable Boolean planNode,
    @Nullable Boolean usageApart) {

  public static final String TYPE_AGENT = "agent";

  /** The field of {@link #usageApart}. */
  public static final String USAGE_APART = "usageApart";

  /**
   * Whether the turns of a task, or of its sub-agent, whose {@code usageApart} is as given count on
   * its chat's sums as well: unless they are kept apart; one started before always does.
   */
  public static boolean countsOnChat(@Nullable Boolean usageApart) {
    return !Boolean.TRUE.equals(usageApart);
  }

  /** The field of {@link #failureReason}, which the services that fail a task set. */
  public static final String FAILURE_REASON = "failureReason";

  /**
   * The tokens of the current run of the tree a task is the root of: its own turns and those of
   * every descendant since the person's message that started the run ({@link
   * UsageCounter#addToRun}, {@link UsageCounter#addToTree}). The root's first turn of a run sets it
   * to that turn's tokens, so a follow-up of the root starts the count afresh (a descendant still
   * working from the earlier run counts into the new one). Only queries use it: it is not read into
   * this record.
   */
  public static final String RUN_TOKENS = "runTokens";

  @PersistenceCreator
  public Task {}

  /**
   * A task just created for {@code agent}, its {@code TaskCreated} in its outbox (the event's id
   * derived from the task's, {@link TaskEventIds#created}; a child's event names its parent, depth
   * and the call that started it), to be inserted once and published.
   *
   * @param model see {@link #model()}
   * @param delegation see {@link #delegation()}; null for a task the orchestrator started
   * @param routing see {@link #routing()}; null for a child task
   * @param chatLimits the chat's limits as the caller read them ({@link ChatLimits#NONE} for none),
   *     which the event carries so that the task's start need not read the chat; null when the
   *     caller did not read them
   */
  public static Task created(
      String id,
      String chatId,
      String agent,
      String instruction,
      @Nullable String model,
      @Nullable Delegation delegation,
      @Nullable Routing routing,
      @Nullable ChatLimits chatLimits,
      Instant now,
      EventCodec codec) {
    return created(
        id, chatId, agent, instruction, model, delegation, routing, chatLimits, false, now, codec);
  }

  /**
   * {@link #created(String, String, String, String, String, Delegation, Routing, ChatLimits,
   * Instant, EventCodec)}, a plan's node when {@code planNode} (see {@link #planNode()}).
   */
  public static Task created(
      String id,
      String chatId,
      String agent,
      String instruction,
      @Nullable String model,
      @Nullable Delegation delegation,
      @Nullable Routing routing,
      @Nullable ChatLimits chatLimits,
      boolean planNode,
      Instant now,
      EventCodec codec) {
    TaskCreated event =
        new TaskCreated(
            TaskEventIds.created(id),
            now,
            id,
            chatId,
            agent,
            instruction,
            delegation == null ? null : delegation.parentTaskId(),
            delegation == null ? null : delegation.depth(),
            delegation == null ? null : delegation.toolCallId(),
            chatLimits == null ? null : chatLimits.carried(),
            new TaskCreated.Start(model));
    return new Task(
        id,
        chatId,
        TYPE_AGENT,
        agent,
        instruction,
        model,
        TaskStatus.created,
        null,
        null,
        null,
        null,
        now,
        now,
        List.of(OutboxEntry.of(event, codec)),
        delegation,
        null,
        null,
        routing,
        null,
        planNode,
        null);
  }

  /**
   * Why the orchestrator put this agent on the task: the decision's confidence (0–1) and reason.
   *
   * @param fallback whether the task went to the fallback agent ({@code routing.fallbackAgent} of
   *     agents.yml): the decision's confidence was too low, or the task re-routes a failed one
   */
  public record Routing(double confidence, String reason, boolean fallback) {}

  public Task(
      String id,
      String chatId,
      String type,
      String agent,
      String instruction,
      @Nullable String model,
      TaskStatus status,
      @Nullable String subAgentId,
      @Nullable String result,
      @Nullable String error,
      @Nullable Usage usage,
      Instant createdAt,
      Instant updatedAt,
      List<OutboxEntry> outbox,
      @Nullable Delegation delegation,
      @Nullable Instant startedAt,
      @Nullable Instant endedAt,
      @Nullable Routing routing,
      @Nullable String failureReason) {
    this(
        id,
        chatId,
        type,
        agent,
        instruction,
        model,
        status,
        subAgentId,
        result,
        error,
        usage,
        createdAt,
        updatedAt,
        outbox,
        delegation,
        startedAt,
        endedAt,
        routing,
        failureReason,
        null,
        null);
  }

  public Task(
      String id,
      String chatId,
      String type,
      String agent,
      String instruction,
      @Nullable String model,
      TaskStatus status,
      @Nullable String subAgentId,
      @Nullable String result,
      @Nullable String error,
      @Nullable Usage usage,
      Instant createdAt,
      Instant updatedAt,
      List<OutboxEntry> outbox,
      @Nullable Delegation delegation,
      @Nullable Instant startedAt,
      @Nullable Instant endedAt,
      @Nullable Routing routing) {
    this(
        id,
        chatId,
        type,
        agent,
        instruction,
        model,
        status,
        subAgentId,
        result,
        error,
        usage,
        createdAt,
        updatedAt,
        outbox,
        delegation,
        startedAt,
        endedAt,
        routing,
        null);
  }

  public Task(
      String id,
      String chatId,
      String type,
      String agent,
      String instruction,
      @Nullable String model,
      TaskStatus status,
      @Nullable String subAgentId,
      @Nullable String result,
      @Nullable String error,
      @Nullable Usage usage,
      Instant createdAt,
      Instant updatedAt,
      List<OutboxEntry> outbox,
      @Nullable Delegation delegation,
      @Nullable Instant startedAt,
      @Nullable Instant endedAt) {
    this(
        id,
        chatId,
        type,
        agent,
        instruction,
        model,
        status,
        subAgentId,
        result,
        error,
        usage,
        createdAt,
        updatedAt,
        outbox,
        delegation,
        startedAt,
        endedAt,
        null);
  }

  /**
   * A child task: an agent's {@code message_agent} call started it, and its outcome becomes that
   * call's tool result. A later call with the child's conversation id ({@link #conversationId})
   * wakes it again and becomes the call its next outcome answers.
   *
   * @param parentTaskId the task of the agent that called
   * @param parentSubAgentId the sub-agent that called
   * @param rootTaskId the task the orchestrator started, at the top of the tree
   * @param depth 1 for a child of a root task, 2 for its child, …
   * @param toolCallId the call its next outcome answers (the id the agent loop gives the call)
   * @param modelCallId that call's id as the model wrote it, which the tool message carries
   * @param deadline when the caller's run must end (its deadline when it called): the child's runs
   *     end by then too, so the deadline holds for the whole tree; null when the caller had none
   */
  public record Delegation(
      String parentTaskId,
      String parentSubAgentId,
      String rootTaskId,
      int depth,
      String toolCallId,
      String modelCallId,
      @Nullable Instant deadline) {}

  /**
   * The id of the task that re-routes this one to the fallback agent should it fail (the finalizer
   * starts it): derived from this one's, so it is started once, and whoever knows a task finds its
   * re-route.
   */
  public static String rerouteId(String taskId) {
    return Ids.derived(taskId, "reroute");
  }

  /** The child's conversation id, which a parent passes back to talk to it again: its task's id. */
  public String conversationId() {
    return id;
  }

  /** 0 for a task the orchestrator started, else its depth below it. */
  public int depth() {
    return delegation == null ? 0 : delegation.depth();
  }

  public Task(
      String id,
      String chatId,
      String type,
      String agent,
      String instruction,
      @Nullable String model,
      TaskStatus status,
      @Nullable String subAgentId,
      @Nullable String result,
      @Nullable String error,
      @Nullable Usage usage,
      Instant createdAt,
      Instant updatedAt,
      List<OutboxEntry> outbox) {
    this(
        id,
        chatId,
        type,
        agent,
        instruction,
        model,
        status,
        subAgentId,
        result,
        error,
        usage,
        createdAt,
        updatedAt,
        outbox,
        null,
        null,
        null,
        null);
  }

  public Task(
      String id,
      String chatId,
      String type,
      String agent,
      String instruction,
      TaskStatus status,
      @Nullable String subAgentId,
      @Nullable String result,
      @Nullable String error,
      Instant createdAt,
      Instant updatedAt,
      List<OutboxEntry> outbox) {
    this(
        id,
        chatId,
        type,
        agent,
        instruction,
        null,
        status,
        subAgentId,
        result,
        error,
        null,
        createdAt,
        updatedAt,
        outbox,
        null,
        null,
        null,
        null);
  }
}
