package dev.agentrt.agentloop;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.Collections;
import dev.agentrt.store.DelegationReplies;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentIds;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Carries out an answer's {@code message_agent} calls, the runtime's own tool: each starts a child
 * task through the same topics as any task ({@code TaskCreated} → agent-init → agent-loop), or,
 * with a {@code conversation_id}, gives the child of an earlier call the new message and wakes it.
 * The caller's call then stays pending and nothing is held: the child's outcome becomes the call's
 * tool message (the finalizer writes it with {@link DelegationReplies}) and wakes the caller.
 *
 * <p>Everything derives from the call's id, so carrying out the same answer again (a redelivered
 * event, a turn finished by another instance) starts no second child and sends no second message:
 * the child task's id derives from the call, its {@code TaskCreated} rides in its own outbox, and a
 * woken child records the call it answers in the same conditional write that wakes its task. A call
 * that cannot be carried out (an agent not among the caller's delegates, too deep, a conversation
 * that is not the caller's or still busy) gets its tool error at once.
 */
@Component
class Delegations {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final SubAgentConversations conversations;
  private final AgentCatalog agents;
  private final Outbox outbox;
  private final EventCodec codec;
  private final RunLedger ledger;
  private final DelegationReplies replies;
  private final int maxDepth;
  private final Clock clock = Clock.systemUTC();

  Delegations(
      MongoTemplate mongo,
      BulkWrites writes,
      SubAgentConversations conversations,
      AgentCatalog agents,
      Outbox outbox,
      EventCodec codec,
      RunLedger ledger,
      RunLimits limits) {
    this.mongo = mongo;
    this.writes = writes;
    this.conversations = conversations;
    this.agents = agents;
    this.outbox = outbox;
    this.codec = codec;
    this.ledger = ledger;
    this.replies = new DelegationReplies(conversations, outbox, codec);
    this.maxDepth = limits.maxDepth();
  }

  static boolean isDelegation(RequestedToolCall call) {
    return ToolCatalog.MESSAGE_AGENT.equals(call.name());
  }

  /** The id of the child task a call starts (it is also the conversation's id). */
  static String childTaskId(String toolCallId) {
    return Ids.derived(toolCallId, "child-task");
  }

  /**
   * Starts or wakes the child of each {@code message_agent} call among {@code calls}; safe to
   * repeat.
   *
   * @param answer the stored assistant message that made the calls
   */
  void carryOut(SubAgent caller, SubAgentMessage answer, List<RequestedToolCall> calls) {
    Task callerTask = null;
    Instant deadline = null;
    for (RequestedToolCall call : calls) {
      if (!isDelegation(call)) {
        continue;
      }
      if (callerTask == null) {
        callerTask = mongo.findById(caller.taskId(), Task.class);
        if (callerTask == null) {
          throw new IllegalStateException("task " + caller.taskId() + " is not stored");
        }
        // The caller's run deadline as its turn recorded it (the caller given here may predate it).
        SubAgent stored = mongo.findById(caller.id(), SubAgent.class);
        deadline = stored == null ? null : stored.deadline();
      }
      carryOut(caller, callerTask, deadline, OutcomeRecorder.toolCallId(answer.id(), call), call);
    }
  }

  private void carryOut(
      SubAgent caller,
      Task callerTask,
      @Nullable Instant deadline,
      String toolCallId,
      RequestedToolCall call) {
    Request request;
    try {
      request = Request.of(call.arguments());
    } catch (IllegalArgumentException e) {
      refuse(caller, toolCallId, call, "invalid_arguments", e.getMessage(), null, null);
      return;
    }
    AgentDefinition agent = agents.get(caller.agent());
    if (!agent.delegates().contains(request.agent())) {
      refuse(
          caller,
          toolCallId,
          call,
          "not_allowed",
          "the " + agent.name() + " may message only " + agent.delegates(),
          request.agent(),
          request.conversationId());
      return;
    }
    if (request.conversationId() != null) {
      continueConversation(caller, deadline, toolCallId, call, request);
      return;
    }
    int depth = callerTask.depth() + 1;
    if (depth > maxDepth) {
      refuse(
          caller,
          toolCallId,
          call,
          "depth_exceeded",
          "a task may not start a child deeper than "
              + maxDepth
              + " below the task the person asked for (AGENTRT_LIMITS_MAX_DEPTH); answer with"
              + " what you have",
          request.agent(),
          null);
      return;
    }
    start(caller, callerTask, deadline, toolCallId, call, request, depth);
  }

  /** Inserts the child task with its {@code TaskCreated} in its outbox, once, and publishes it. */
  private void start(
      SubAgent caller,
      Task callerTask,
      @Nullable Instant deadline,
      String toolCallId,
      RequestedToolCall call,
      Request request,
      int depth) {
    Instant now = clock.instant();
    String taskId = childTaskId(toolCallId);
    Task.Delegation delegation =
        new Task.Delegation(
            callerTask.id(),
            caller.id(),
            callerTask.delegation() == null
                ? callerTask.id()
                : callerTask.delegation().rootTaskId(),
            depth,
            toolCallId,
            call.id(),
            deadline);
    Task child =
        writes
            .insertOrFind(
                Task.created(
                    taskId,
                    caller.chatId(),
                    request.agent(),
                    request.message(),
                    callerTask.model(),
                    delegation,
                    null,
                    chatLimitsOf(caller),
                    now,
                    codec))
            .document();
    recordStart(caller, toolCallId, request, taskId, false);
    outbox.publish(Collections.TASKS, child.id(), child.outbox());
  }

  /**
   * Gives the message to the child of an earlier call and wakes it: its task {@code success →
   * running} with this call as the one its next outcome answers, in one conditional write (or that
   * write was made by an earlier attempt at this call); then the message, then the sub-agent {@code
   * completed → active} and the message's event, which wakes it. The caller's deadline now is the
   * one this call's run of the child ends by: on the task, and on the sub-agent in the write that
   * wakes it.
   */
  private void continueConversation(
      SubAgent caller,
      @Nullable Instant deadline,
      String toolCallId,
      RequestedToolCall call,
      Request request) {
    String taskId = request.conversationId();
    Task child = mongo.findById(taskId, Task.class);
    if (child == null
        || child.delegation() == null
        || !child.delegation().parentSubAgentId().equals(caller.id())
        || !child.agent().equals(request.agent())) {
      refuse(
          caller,
          toolCallId,
          call,
          "unknown_conversation",
          "no conversation "
              + taskId
              + " with the "
              + request.agent()
              + " was started by you; leave out conversation_id to start one",
          request.agent(),
          taskId);
      return;
    }
    Instant now = clock.instant();
    if (!toolCallId.equals(child.delegation().toolCallId())) {
      Task woken =
          mongo.findAndModify(
              Query.query(
                  Criteria.where("_id")
                      .is(taskId)
                      .and("status")
                      .is(TaskStatus.success)
                      .and("delegation.toolCallId")
                      .is(child.delegation().toolCallId())),
              new Update()
                  .set("status", TaskStatus.running)
                  .set("delegation.toolCallId", toolCallId)
                  .set("delegation.modelCallId", call.id())
                  .set("delegation.deadline", deadline)
                  .set("instruction", request.message())
                  .set("updatedAt", now)
                  .unset("endedAt"),
              Task.class);
      if (woken == null) {
        Task current = mongo.findById(taskId, Task.class);
        if (current == null || !toolCallId.equals(current.delegation().toolCallId())) {
          boolean busy =
              current != null
                  && (current.status() == TaskStatus.running
                      || current.status() == TaskStatus.waiting
                      || current.status() == TaskStatus.created);
          refuse(
              caller,
              toolCallId,
              call,
              busy ? "busy" : "conversation_ended",
              busy
                  ? "the "
                      + request.agent()
                      + " is still working on your earlier message; wait"
                      + " for its answer before sending another"
                  : "the conversation with the "
                      + request.agent()
                      + " ended ("
                      + (current == null ? "gone" : current.status())
                      + "); start a new one without conversation_id",
              request.agent(),
              taskId);
          return;
        }
      }
    }
    SubAgent childAgent = mongo.findById(child.subAgentId(), SubAgent.class);
    if (childAgent == null) {
      throw new IllegalStateException("the sub-agent of task " + taskId + " is not stored");
    }
    String messageId = Ids.derived(toolCallId, "message");
    SubAgentMessage message =
        conversations.append(
            childAgent,
            new NewMessage(
                messageId,
                SubAgentMessage.USER,
                request.message(),
                List.of(),
                null,
                List.of(
                    OutboxEntry.of(
                        SubAgentConversations.added(
                            childAgent, messageId, SubAgentMessage.USER, now),
                        codec))),
            now);
    mongo.updateFirst(
        Query.query(
            Criteria.where("_id").is(childAgent.id()).and("status").is(SubAgentStatus.completed)),
        new Update()
            .set("status", SubAgentStatus.active)
            .set(SubAgent.Settings.CALLER_DEADLINE, deadline)
            .set("updatedAt", now),
        SubAgent.class);
    recordStart(caller, toolCallId, request, taskId, true);
    ledger.append(
        childAgent,
        "run_start/" + messageId,
        RunEvent.RUN_START,
        RunLedger.data("agent", childAgent.agent(), "task", request.message()));
    outbox.publish(Collections.SUB_AGENT_MESSAGES, message.id(), message.outbox());
  }

  private void recordStart(
      SubAgent caller, String toolCallId, Request request, String taskId, boolean continued) {
    ledger.append(
        caller,
        "delegation_start/" + toolCallId,
        RunEvent.DELEGATION_START,
        RunLedger.data(
            "agent",
            request.agent(),
            "childTaskId",
            taskId,
            "conversationId",
            taskId,
            "message",
            RunLedger.excerpt(request.message()),
            "continued",
            continued));
  }

  private void refuse(
      SubAgent caller,
      String toolCallId,
      RequestedToolCall call,
      String errorType,
      String message,
      @Nullable String agent,
      @Nullable String conversationId) {
    replies.answer(
        SubAgentIds.of(caller),
        toolCallId,
        call.id(),
        DelegationReplies.error(errorType, message, agent, conversationId),
        clock.instant());
  }

  /** A {@code message_agent} call's arguments. */
  record Request(String agent, String message, @Nullable String conversationId) {

    static Request of(String arguments) {
      JsonNode args;
      try {
        args = JSON.readTree(arguments);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("the arguments are not JSON: " + e.getMessage());
      }
      String agent = args.path("agent").asString("").strip();
      String message = args.path("message").asString("").strip();
      String conversation = args.path("conversation_id").asString("").strip();
      if (agent.isEmpty() || message.isEmpty()) {
        throw new IllegalArgumentException(
            "message_agent needs {\"agent\": …, \"message\": …} and may have \"conversation_id\"");
      }
      return new Request(agent, message, conversation.isEmpty() ? null : conversation);
    }
  }

  /**
   * The chat's limits as the caller carries them ({@link ChatLimits#NONE}: none), for its child's
   * event; null for a caller stored before sub-agents carried them.
   */
  private static @Nullable ChatLimits chatLimitsOf(SubAgent caller) {
    return caller.settings() == null
        ? null
        : Objects.requireNonNullElse(caller.settings().limits(), ChatLimits.NONE);
  }
}
