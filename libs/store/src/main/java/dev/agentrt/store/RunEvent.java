package dev.agentrt.store;

import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.data.annotation.PersistenceCreator;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/**
 * One step a person can watch, in the order of its chat: {@code seq} counts 1, 2, 3 … per chat.
 * Written by the service that took the step (see {@link RunLedger}); read by the orchestrator's
 * event stream.
 *
 * @param id the chat id and the event's key ({@code chatId/key}): the same step recorded twice is
 *     one event
 * @param type what happened: {@code message}, {@code handoff}, {@code run_start}, {@code
 *     step_start}, {@code step_end}, {@code tool_call_start}, {@code tool_call_result}, {@code
 *     question}, {@code user_answer}, {@code budget_warning}, {@code error}, {@code run_end},
 *     {@code delegation_start}, {@code delegation_end}, {@code approval_requested}, {@code
 *     approval_decided}, {@code guidance}, {@code plan_created}, {@code plan_node_started}, {@code
 *     plan_node_ended}, {@code plan_node_skipped}, {@code plan_end}
 * @param data the step's details (see the stream's documentation in the orchestrator README)
 */
@Document(Collections.RUN_EVENTS)
public record RunEvent(
    @MongoId(FieldType.STRING) String id,
    String chatId,
    long seq,
    String type,
    Instant at,
    @Nullable String taskId,
    @Nullable String subAgentId,
    @Nullable String agent,
    Map<String, Object> data) {

  public static final String MESSAGE = "message";
  public static final String HANDOFF = "handoff";
  public static final String RUN_START = "run_start";
  public static final String STEP_START = "step_start";
  public static final String STEP_END = "step_end";
  public static final String TOOL_CALL_START = "tool_call_start";
  public static final String TOOL_CALL_RESULT = "tool_call_result";
  public static final String QUESTION = "question";
  public static final String USER_ANSWER = "user_answer";
  public static final String BUDGET_WARNING = "budget_warning";
  public static final String ERROR = "error";
  public static final String RUN_END = "run_end";

  /** An agent's {@code message_agent} call started or woke a child task. */
  public static final String DELEGATION_START = "delegation_start";

  /** A child task's outcome went back to the call of its parent. */
  public static final String DELEGATION_END = "delegation_end";

  /** A call of a gated tool waits for a person's approval. */
  public static final String APPROVAL_REQUESTED = "approval_requested";

  /** A person (or the timeout, or a cancellation) approved or rejected a call. */
  public static final String APPROVAL_DECIDED = "approval_decided";

  /** A person's guidance reached a sub-agent's conversation. */
  public static final String GUIDANCE = "guidance";

  /** The orchestrator decided a plan: its nodes and their dependencies. */
  public static final String PLAN_CREATED = "plan_created";

  /** A plan's node started as a task. */
  public static final String PLAN_NODE_STARTED = "plan_node_started";

  /** A plan's node ended: succeeded, failed or was cancelled. */
  public static final String PLAN_NODE_ENDED = "plan_node_ended";

  /** A plan's node will not run: a node it depends on did not succeed. */
  public static final String PLAN_NODE_SKIPPED = "plan_node_skipped";

  /** A plan's last node ended: its status. */
  public static final String PLAN_END = "plan_end";

  /** A failed task went once more to the fallback agent, as a new task. */
  public static final String REROUTE = "reroute";

  /** The fallback agent's task failed too: nothing is left to route the request to. */
  public static final String ROUTING_EXHAUSTED = "routing_exhausted";

  @PersistenceCreator
  public RunEvent {}
}
