package dev.agentrt.agentloop;

import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.events.Event;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCompleted;
import dev.agentrt.events.TaskFailed;
import dev.agentrt.events.TaskWaiting;
import dev.agentrt.events.ToolCallRequested;
import dev.agentrt.model.ModelReply;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.PendingToolCalls;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.Appended;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentIds;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskEventIds;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.store.TurnInput;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.store.UsageCounter;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.data.mongodb.core.FindAndModifyOptions;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.convert.MongoConverter;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

/**
 * Writes what a turn decided. The model's answer is stored first, as one assistant message whose id
 * derives from the turn: that write is the turn's commit point, so a turn whose answer is stored is
 * never asked of the model again. Its consequences (tool calls to run, statuses, task events) are
 * applied by conditional updates that can be repeated after a crash without doing anything twice.
 * The turn's tokens are counted once, by the write that inserts the answer.
 */
@Component
class OutcomeRecorder {

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final SubAgentConversations conversations;
  private final Outbox outbox;
  private final EventCodec codec;
  private final UsageCounter usage;
  private final RunLedger ledger;
  private final Delegations delegations;
  private final int maxToolCalls;
  private final Clock clock = Clock.systemUTC();

  OutcomeRecorder(
      MongoTemplate mongo,
      BulkWrites writes,
      SubAgentConversations conversations,
      Outbox outbox,
      EventCodec codec,
      UsageCounter usage,
      RunLedger ledger,
      Delegations delegations,
      AgentLoopProperties properties) {
    this.mongo = mongo;
    this.writes = writes;
    this.conversations = conversations;
    this.outbox = outbox;
    this.codec = codec;
    this.usage = usage;
    this.ledger = ledger;
    this.delegations = delegations;
    this.maxToolCalls = properties.maxToolCallsPerTurn();
  }

  /**
   * Stores the model's answer to the messages up to {@code answeredSeq}, if the sub-agent is still
   * active: its place in the conversation is taken by a write that matches only an active
   * sub-agent, so the answer of a sub-agent cancelled or failed (by a limit) while the model
   * thought is dropped, and nothing of it is stored; when no message came since {@code subAgent}
   * was read, that write goes out with others and reads nothing back. Then the assistant message,
   * with the model asked and the turn's tokens: the commit point. Then the tool calls of the answer
   * stored, which is another one when the turn was taken again after its lease expired and answered
   * first by the other worker: only calls a stored message asked for are ever recorded, so none
   * runs that no message asked for. The write that inserts the message adds its tokens to the sums
   * of the task, and to its tree's run (a sub-agent made before tasks kept their usage apart from
   * their chat's also adds them to the chat's, with the step's end: {@link
   * StoredAnswer#chatUsage}): the task's own write counts it for a task the orchestrator started
   * (no extra round trip); a child's turn adds one write, to its root's run. A task that started no
   * child task has no other turns in its run than its own, whose sum its conversation gives: its
   * write reads nothing back and goes in a bulk write with others, queued before the calls are
   * recorded so that it goes in theirs: one wait for both. The sub-agent's sums are its answers'
   * ({@link dev.agentrt.store.Usage#summed}). Storing the same answer again finds it stored and
   * counts nothing.
   *
   * @param model the model asked (null: the default model)
   * @param input what the turn was given, kept on the answer for a replay
   * @param needsApproval which tools' calls wait for a person's approval: they are marked so in the
   *     stored answer, and no {@code ToolCallRequested} is published for them
   * @param firstOfRun the answer is the run's first turn: the run's token sum restarts from it
   * @param delegated the sub-agent started a child task before this turn ({@code message_agent})
   * @return the stored answer (this one, or the one stored before); empty when the sub-agent is no
   *     longer active
   */
  Optional<StoredAnswer> storeAnswer(
      SubAgent subAgent,
      long answeredSeq,
      ModelReply reply,
      @Nullable String model,
      TurnInput input,
      Predicate<String> needsApproval,
      boolean firstOfRun,
      boolean delegated) {
    Instant now = clock.instant();
    OptionalLong seq =
        conversations.takeSeqsWhileActive(subAgent.id(), 1, subAgent.messageCount(), now);
    if (seq.isEmpty()) {
      return Optional.empty();
    }
    String messageId = answerId(subAgent.id(), answeredSeq);
    List<RequestedToolCall> calls = callsToRecord(reply, needsApproval);
    List<OutboxEntry> events = new ArrayList<>();
    List<RequestedToolCall> run = toRun(calls);
    for (int i = 0; i < run.size(); i++) {
      RequestedToolCall call = run.get(i);
      if (Delegations.isDelegation(call) || call.gated()) {
        continue; // the runtime's own, started by apply; or announced once a person approves it
      }
      String toolCallId = toolCallId(messageId, call);
      events.add(
          entry(
              new ToolCallRequested(
                  Ids.derived(toolCallId, "requested"),
                  now,
                  toolCallId,
                  subAgent.id(),
                  subAgent.taskId(),
                  subAgent.chatId(),
                  call.name(),
                  new ToolCallRequested.Call(
                      subAgent.agent(),
                      messageId,
                      call.id(),
                      call.arguments(),
                      resultAfter(seq.getAsLong(), calls, run, i)))));
    }
    TurnUsage tokens =
        reply.usage() == null
            ? TurnUsage.NONE
            : new TurnUsage(reply.usage().promptTokens(), reply.usage().completionTokens());
    Appended stored =
        conversations.insertAt(
            SubAgentIds.of(subAgent),
            seq.getAsLong(),
            new NewMessage(
                messageId,
                SubAgentMessage.ASSISTANT,
                reply.content(),
                calls,
                null,
                model,
                tokens,
                input,
                events),
            now);
    String root = subAgent.settings() == null ? null : subAgent.settings().rootTaskId();
    boolean ownRun = root == null && !delegated;
    // Queued before the calls are recorded, so that both go out in one batch of the bulk writes.
    @Nullable CompletableFuture<Void> ownRunCounted =
        stored.inserted() && ownRun
            ? usage.queueToOwnRun(subAgent.taskId(), model, tokens, firstOfRun)
            : null;
    recordCalls(subAgent, stored.message());
    long runTokens = 0;
    Map<String, Long> chatUsage = Map.of();
    if (stored.inserted()) {
      if (ownRunCounted != null) {
        BulkWrites.await(ownRunCounted);
      } else if (root == null) {
        runTokens = usage.addToRun(subAgent.taskId(), model, tokens, firstOfRun);
      } else {
        usage.add(Task.class, subAgent.taskId(), model, tokens, 1);
        runTokens = usage.addToTree(root, tokens);
      }
      if (subAgent.settings() == null || Task.countsOnChat(subAgent.settings().usageApart())) {
        chatUsage = UsageCounter.counts(model, tokens, 1);
      }
    }
    return Optional.of(new StoredAnswer(stored.message(), runTokens, chatUsage));
  }

  /**
   * A stored answer and the tokens of its tree's run (see {@link Task#RUN_TOKENS}) after it: those
   * of the task's own run for a task the orchestrator started, of its root's run for a child; 0
   * when this answer was stored before (it counted then), or when the run is the task's turns alone
   * (its conversation's sum is the run's). With what the answer adds to its chat's usage, which the
   * step's end adds with its run event ({@link RunLedger#append(SubAgent, String, String, Map,
   * Map)}); nothing when it was stored before, or when its task keeps its usage apart ({@link
   * Task#usageApart}): the chat's is then read as its own plus its tasks'.
   */
  record StoredAnswer(SubAgentMessage answer, long runTokens, Map<String, Long> chatUsage) {}

  /** The id of the answer to the messages up to {@code answeredSeq}: one per turn. */
  static String answerId(String subAgentId, long answeredSeq) {
    return Ids.derived(subAgentId, "answer-" + answeredSeq);
  }

  /**
   * Records the tool calls of a stored answer as {@code pending} for the tool-runner ({@code
   * awaiting_approval} for those the answer marks gated), each unless it is recorded already (its
   * id derives from the answer and the call); safe to repeat, for the answer of a worker that died
   * before recording them. The calls past {@code max-tool-calls-per-turn} are not run: each gets a
   * tool message saying so, which the model reads with the others' results.
   */
  void recordCalls(SubAgent subAgent, SubAgentMessage answer) {
    Instant now = clock.instant();
    List<RequestedToolCall> calls = answer.toolCalls();
    if (isQuestion(calls)) {
      return;
    }
    List<RequestedToolCall> run = toRun(calls);
    List<ToolCall> toolCalls = new ArrayList<>(run.size());
    for (int i = 0; i < run.size(); i++) {
      if (!Delegations.isDelegation(run.get(i))) {
        toolCalls.add(
            toolCall(subAgent, answer, run.get(i), resultAfter(answer.seq(), calls, run, i), now));
      }
    }
    insertOnce(toolCalls);
    for (RequestedToolCall call : calls.subList(run.size(), calls.size())) {
      conversations.append(
          subAgent,
          new NewMessage(
              Ids.derived(toolCallId(answer.id(), call), "too-many"),
              SubAgentMessage.TOOL,
              "{\"error_type\":\"too_many_tool_calls\",\"message\":\"not run: a turn may make at most "
                  + maxToolCalls
                  + " tool calls; ask for it again in a later turn if you still need it\"}",
              List.of(),
              call.id(),
              List.of()),
          now);
    }
  }

  /**
   * The conversation's count the result of the {@code i}th call run expects ({@link
   * ToolCall#resultAfter}): results come after the answer (at {@code answerSeq}) and the messages
   * of the calls not run, in the order of the calls.
   */
  private static long resultAfter(
      long answerSeq, List<RequestedToolCall> calls, List<RequestedToolCall> run, int i) {
    return answerSeq + calls.size() - run.size() + i;
  }

  /**
   * The calls of an answer that run: the first {@code max-tool-calls-per-turn}; none for a question
   * ({@code ask_user} stands alone, the person answers it).
   */
  private List<RequestedToolCall> toRun(List<RequestedToolCall> calls) {
    return isQuestion(calls) ? List.of() : calls.subList(0, Math.min(calls.size(), maxToolCalls));
  }

  private static boolean isQuestion(List<RequestedToolCall> calls) {
    return calls.stream().anyMatch(c -> ToolCatalog.ASK_USER.equals(c.name()));
  }

  /** Carries out what a stored answer decided; safe to repeat. */
  void apply(SubAgent subAgent, SubAgentMessage answer) {
    switch (TurnOutcome.of(answer)) {
      case TurnOutcome.ToolCalls calls -> {
        delegations.carryOut(subAgent, answer, toRun(calls.calls()));
        outbox.publish(
            Collections.SUB_AGENT_MESSAGES,
            answer.id(),
            answer.outbox(),
            ledger.positionHeader(subAgent.chatId()));
        List<RequestedToolCall> gated =
            toRun(calls.calls()).stream().filter(RequestedToolCall::gated).toList();
        if (!gated.isEmpty()) {
          awaitApproval(subAgent, answer, gated);
        }
      }
      case TurnOutcome.Question question -> {
        ledger.append(
            subAgent,
            "question/" + answer.id(),
            RunEvent.QUESTION,
            RunLedger.data(
                "toolCallId",
                question.call().id(),
                "stepId",
                answer.id(),
                "question",
                question.question()));
        move(subAgent, SubAgentStatus.active, SubAgentStatus.waiting_for_user);
        moveTask(
            subAgent,
            TaskStatus.running,
            TaskStatus.waiting,
            new Update(),
            new TaskWaiting(
                TaskEventIds.waiting(answer.id()),
                clock.instant(),
                subAgent.taskId(),
                subAgent.chatId(),
                subAgent.id(),
                question.question()));
      }
      case TurnOutcome.FinalAnswer finalAnswer -> {
        move(subAgent, SubAgentStatus.active, SubAgentStatus.completed);
        moveTask(
            subAgent,
            TaskStatus.running,
            TaskStatus.success,
            new Update().set("result", finalAnswer.answer()).unset("error"),
            List.of(
                new TaskCompleted(
                    TaskEventIds.completed(answer.id()),
                    clock.instant(),
                    subAgent.taskId(),
                    subAgent.chatId(),
                    subAgent.id(),
                    finalAnswer.answer())));
      }
    }
  }

  /**
   * Puts the run on hold for the person's decision on the gated calls of an answer: each gets an
   * {@code approval_requested} run event, and the task goes {@code waiting} with one {@code
   * TaskWaiting} per call in the same write, for the notifier to ask in the chat. The sub-agent
   * stays {@code active}: the other calls of the turn run meanwhile, and the next turn waits, like
   * for any call, until every call has its result (a rejected one gets its tool message from the
   * orchestrator, an approved one from tool-runner). Safe to repeat: the move is conditional, the
   * events' ids derive from the calls, and calls decided meanwhile are left out (an approved call
   * still running leaves its answer last, so the answer is applied again on a redelivery).
   */
  private void awaitApproval(
      SubAgent subAgent, SubAgentMessage answer, List<RequestedToolCall> gated) {
    Instant now = clock.instant();
    List<String> awaiting =
        mongo
            .find(
                Query.query(
                    Criteria.where("_id")
                        .in(gated.stream().map(call -> toolCallId(answer.id(), call)).toList())
                        .and("status")
                        .is(ToolCallStatus.awaiting_approval)),
                ToolCall.class)
            .stream()
            .map(ToolCall::id)
            .toList();
    List<Event> waiting = new ArrayList<>();
    for (RequestedToolCall call : gated) {
      String toolCallId = toolCallId(answer.id(), call);
      if (!awaiting.contains(toolCallId)) {
        continue;
      }
      ledger.append(
          subAgent,
          "approval_requested/" + toolCallId,
          RunEvent.APPROVAL_REQUESTED,
          RunLedger.toolCall(toolCallId, answer.id(), call.name(), call.arguments()));
      waiting.add(
          TaskWaiting.approval(
              TaskEventIds.awaitingApproval(toolCallId),
              now,
              subAgent.taskId(),
              subAgent.chatId(),
              subAgent.id(),
              toolCallId,
              call.name(),
              call.arguments()));
    }
    if (!waiting.isEmpty()) {
      moveTask(subAgent, TaskStatus.running, TaskStatus.waiting, new Update(), waiting);
    }
  }

  /**
   * The task of a run whose calls waited for approval is {@code running} again once they are all
   * decided: the orchestrator moves it as the last one is decided, and this turn does, should that
   * move have been lost to a crash, so the run's outcome finds the task as it expects.
   */
  void resumeAfterApprovals(SubAgent subAgent) {
    mongo.updateFirst(
        Query.query(
            Criteria.where("_id").is(subAgent.taskId()).and("status").is(TaskStatus.waiting)),
        new Update().set("status", TaskStatus.running).set("updatedAt", clock.instant()),
        Task.class);
  }

  /**
   * Asks the model to correct a final answer that breaks the agent's output schema: a user message
   * with the problems, the answer and the schema, which wakes the loop for a repair turn.
   */
  void askForRepair(
      SubAgent subAgent, SubAgentMessage answer, List<String> problems, String schema) {
    Instant now = clock.instant();
    String messageId = Ids.derived(answer.id(), "repair");
    String request =
        ConversationState.REPAIR_PROMPT
            + "\nWhat is wrong:\n- "
            + String.join("\n- ", problems)
            + "\nYour answer was:\n"
            + answer.content()
            + "\nThe schema:\n"
            + schema
            + "\nReply with only the corrected JSON.";
    prompt(subAgent, messageId, request, now);
  }

  /**
   * Drops the tool calls a stored answer asked for, before any is announced: they end {@code
   * failed} with the reason, and the answer's outbox is emptied so the relay announces nothing.
   */
  void dropCalls(SubAgentMessage answer, String reason) {
    PendingToolCalls.fail(mongo, ledger, answer.subAgentId(), reason, clock.instant());
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(answer.id())),
        new Update().set(Outbox.FIELD, List.of()),
        SubAgentMessage.class);
  }

  /**
   * Tells the model it keeps making the same tool call for the same result: a user message of the
   * loop's own (it does not start a new run), whose event wakes the loop for the next turn. One
   * more such call fails the run with {@code stagnated}. Safe to repeat.
   */
  void warnOfRepeats(SubAgent subAgent, ConversationState conversation, int repeats) {
    Instant now = clock.instant();
    String messageId = Ids.derived(subAgent.id(), "repeats-" + conversation.lastSeq());
    ledger.append(
        subAgent,
        "repeats/" + messageId,
        RunEvent.BUDGET_WARNING,
        RunLedger.data("limit", "repeats", "used", repeats, "max", repeats + 1));
    prompt(
        subAgent,
        messageId,
        ConversationState.STAGNATION_PROMPT
            + " your last "
            + repeats
            + " tool calls were the same call with the same result. Do something"
            + " different (another tool, other arguments) or give your final answer;"
            + " the same call again stops the run.",
        now);
  }

  /**
   * Appends a user message of the loop's own (a repair request, a warning) unless it is there, and
   * announces it, which wakes the loop for the next turn.
   */
  private void prompt(SubAgent subAgent, String messageId, String text, Instant now) {
    SubAgentMessage prompt =
        conversations.append(
            subAgent,
            new NewMessage(
                messageId,
                SubAgentMessage.USER,
                text,
                List.of(),
                null,
                List.of(
                    entry(
                        SubAgentConversations.added(
                            subAgent, messageId, SubAgentMessage.USER, now)))),
            now);
    outbox.publish(Collections.SUB_AGENT_MESSAGES, prompt.id(), prompt.outbox());
  }

  /**
   * Ends the run visibly: a system message in the sub-agent's conversation says why, the sub-agent
   * and its task become {@code failed}, and {@code TaskFailed} tells the finalizer.
   */
  void fail(SubAgent subAgent, long atSeq, String reason, String error) {
    finishFailure(subAgent, recordFailure(subAgent, atSeq, reason, error));
  }

  /**
   * The failure's first writes: its message, then the sub-agent {@code failed} carrying the failure
   * ({@link SubAgent#UNFINISHED_FAILURE}) until {@link #finishFailure(SubAgent, Failure)} has moved
   * the task too. A worker that dies between the two leaves the failure to the sweep ({@link
   * #unfinishedFailures}).
   */
  Failure recordFailure(SubAgent subAgent, long atSeq, String reason, String error) {
    Failure failure =
        new Failure(Ids.derived(subAgent.id(), "failure-" + atSeq), reason, error, clock.instant());
    conversations.append(
        subAgent,
        new NewMessage(
            failure.messageId(),
            SubAgentMessage.SYSTEM,
            "The run failed (" + reason + "): " + error,
            List.of(),
            null,
            List.of()),
        failure.at());
    move(
        subAgent,
        SubAgentStatus.active,
        SubAgentStatus.failed,
        new Update().set(SubAgent.UNFINISHED_FAILURE, failure));
    return failure;
  }

  /**
   * The failure's last writes, safe to repeat: the calls that will not run now fail, the task
   * becomes {@code failed} with its {@code TaskFailed} and the run's end in the ledger; then the
   * sub-agent no longer carries the failure.
   */
  void finishFailure(SubAgent subAgent, Failure failure) {
    PendingToolCalls.fail(mongo, ledger, subAgent.id(), failure.reason(), failure.at());
    moveTask(
        subAgent,
        TaskStatus.running,
        TaskStatus.failed,
        new Update().set("error", failure.error()).set(Task.FAILURE_REASON, failure.reason()),
        List.of(
            new TaskFailed(
                TaskEventIds.failed(failure.messageId()),
                failure.at(),
                subAgent.taskId(),
                subAgent.chatId(),
                subAgent.id(),
                failure.reason(),
                failure.error())),
        () ->
            ledger.append(
                subAgent.chatId(),
                List.of(
                    RunLedger.Step.of(
                        subAgent,
                        "error/" + failure.messageId(),
                        RunEvent.ERROR,
                        RunLedger.data("reason", failure.reason(), "message", failure.error())),
                    RunLedger.Step.of(
                        subAgent,
                        "run_end/" + failure.messageId(),
                        RunEvent.RUN_END,
                        RunLedger.data(
                            "status", "failed", "reason", failure.reason(), "result", null)))));
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id())),
        new Update().unset(SubAgent.UNFINISHED_FAILURE),
        SubAgent.class);
  }

  /**
   * Up to {@code limit} failed sub-agents whose failure was recorded before {@code before} and not
   * finished: their worker died between {@link #recordFailure} and {@link #finishFailure}.
   */
  List<String> unfinishedFailures(Instant before, int limit) {
    return mongo
        .find(
            Query.query(Criteria.where(SubAgent.UNFINISHED_FAILURE + ".at").lt(before))
                .limit(limit),
            Document.class,
            Collections.SUB_AGENTS)
        .stream()
        .map(d -> d.getString("_id"))
        .toList();
  }

  /** Finishes the sub-agent's recorded failure, if it carries one still. */
  void finishFailure(String subAgentId) {
    Document stored = mongo.findById(subAgentId, Document.class, Collections.SUB_AGENTS);
    if (stored != null && stored.get(SubAgent.UNFINISHED_FAILURE) instanceof Document failure) {
      MongoConverter converter = mongo.getConverter();
      finishFailure(converter.read(SubAgent.class, stored), converter.read(Failure.class, failure));
    }
  }

  /**
   * A run's failure as recorded on its sub-agent until its task has it too.
   *
   * @param messageId the failure's message in the conversation, from which its events' ids derive
   */
  record Failure(String messageId, String reason, String error, Instant at) {}

  /**
   * The calls to record, those of gated tools marked so: an {@code ask_user} call stands alone, the
   * person answers it first.
   */
  private static List<RequestedToolCall> callsToRecord(
      ModelReply reply, Predicate<String> needsApproval) {
    List<RequestedToolCall> calls =
        reply.toolCalls().stream()
            .map(
                c ->
                    new RequestedToolCall(
                        c.id(),
                        c.name(),
                        c.arguments(),
                        needsApproval.test(c.name()) ? Boolean.TRUE : null))
            .toList();
    return calls.stream()
        .filter(c -> ToolCatalog.ASK_USER.equals(c.name()))
        .findFirst()
        .map(List::of)
        .orElse(calls);
  }

  /** The id of a call of a stored answer: derived from the answer and the model's call id. */
  static String toolCallId(String answerId, RequestedToolCall call) {
    return Ids.derived(answerId, call.id());
  }

  /**
   * Inserts the calls, each unless it was recorded before (the answer's calls recorded again, after
   * a worker died among them), with the writes of other turns made at the same time ({@link
   * BulkWrites}): one command carries them, and under load the calls of other turns too.
   */
  private void insertOnce(List<ToolCall> toolCalls) {
    for (CompletableFuture<Void> insert : writes.queueInserts(toolCalls)) {
      try {
        BulkWrites.await(insert);
      } catch (DuplicateKeyException recordedBefore) {
        // the call is already there
      }
    }
  }

  /**
   * The call as recorded; {@code resultAfter} the conversation's count its result expects ({@link
   * ToolCall#resultAfter}).
   */
  private static ToolCall toolCall(
      SubAgent subAgent,
      SubAgentMessage answer,
      RequestedToolCall call,
      long resultAfter,
      Instant now) {
    return new ToolCall(
        toolCallId(answer.id(), call),
        subAgent.id(),
        subAgent.taskId(),
        subAgent.chatId(),
        subAgent.agent(),
        answer.id(),
        call.id(),
        call.name(),
        call.arguments(),
        call.gated() ? ToolCallStatus.awaiting_approval : ToolCallStatus.pending,
        null,
        null,
        null,
        null,
        now,
        now,
        List.of(),
        resultAfter);
  }

  private void move(SubAgent subAgent, SubAgentStatus from, SubAgentStatus to) {
    move(subAgent, from, to, new Update());
  }

  /** Moves the sub-agent if it is still {@code from}, setting {@code also} in the same write. */
  private void move(SubAgent subAgent, SubAgentStatus from, SubAgentStatus to, Update also) {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id()).and("status").is(from)),
        also.set("status", to).set("updatedAt", clock.instant()),
        SubAgent.class);
  }

  /**
   * Moves the task and records the event in its outbox in the same write, which returns the task as
   * it left it; then publishes whatever its outbox holds (this event, or one a crash left behind,
   * read again when the task had moved before).
   */
  private void moveTask(
      SubAgent subAgent, TaskStatus from, TaskStatus to, Update changes, Event event) {
    moveTask(subAgent, from, to, changes, List.of(event));
  }

  /**
   * {@link #moveTask(SubAgent, TaskStatus, TaskStatus, Update, Event)} with several events. A run
   * that ends with its final answer has its {@code run_end} recorded before, by the turn, with its
   * last step (see {@link #moveTask(SubAgent, TaskStatus, TaskStatus, Update, List, Runnable)}).
   */
  private void moveTask(
      SubAgent subAgent, TaskStatus from, TaskStatus to, Update changes, List<Event> events) {
    moveTask(subAgent, from, to, changes, events, () -> {});
  }

  /**
   * {@link #moveTask(SubAgent, TaskStatus, TaskStatus, Update, List)}, recording the run's end in
   * the ledger first: once the write puts the event in the task's outbox, the relay may publish it
   * (after its grace, however long this process takes), so only a {@code run_end} recorded before
   * the write is sure to come before what the event leads to (the finalizer's answer, its ledger
   * message). Recorded again on a redelivery, the {@code run_end} is kept once.
   */
  private void moveTask(
      SubAgent subAgent,
      TaskStatus from,
      TaskStatus to,
      Update changes,
      List<Event> events,
      Runnable recorded) {
    recorded.run();
    Instant now = clock.instant();
    if (to == TaskStatus.success || to == TaskStatus.failed) {
      changes.set("endedAt", now);
    }
    Task task =
        mongo.findAndModify(
            Query.query(Criteria.where("_id").is(subAgent.taskId()).and("status").is(from)),
            changes
                .set("status", to)
                .set("updatedAt", now)
                .push("outbox")
                .each(events.stream().map(this::entry).toArray()),
            FindAndModifyOptions.options().returnNew(true),
            Task.class);
    if (task == null) {
      task = mongo.findById(subAgent.taskId(), Task.class); // moved before: its outbox may wait
    }
    if (task != null) {
      outbox.publish(
          Collections.TASKS, task.id(), task.outbox(), ledger.positionHeader(subAgent.chatId()));
    }
  }

  private OutboxEntry entry(Event event) {
    return OutboxEntry.of(event, codec);
  }
}
