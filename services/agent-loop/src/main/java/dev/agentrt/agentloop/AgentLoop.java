package dev.agentrt.agentloop;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.agents.ToolDefinitions;
import dev.agentrt.agents.TurnRequests;
import dev.agentrt.events.SubAgentMessageAdded;
import dev.agentrt.events.TaskFailed;
import dev.agentrt.model.GenAi;
import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.Collections;
import dev.agentrt.store.ConfigVersion;
import dev.agentrt.store.Leases;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.StepStarts;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.FindAndModifyOptions;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * The sub-agent loop. {@link #wake} looks at a sub-agent's conversation and does the one thing it
 * calls for: finish a turn whose worker died after storing its answer, apply the outcome of an
 * answer already stored, wait for pending tool calls, or take a model turn. A taken turn runs on
 * its own virtual thread, so a slow model holds up nobody else and the Kafka consumer moves on at
 * once (DESIGN invariants 3 and 4).
 *
 * <p>A turn is held with a lease ({@link Leases} on the sub-agent's {@code turn}), renewed while
 * the model thinks: two copies of this service never both answer a turn, and a turn whose worker
 * died is taken again within the lease and one sweep. While it waits for the model the turn's
 * worker is interrupted when its sub-agent stops being active (at the next renewal, or at once on
 * {@code TaskCancelled}) or another instance took the turn; it then stores nothing. Once the model
 * has answered, the hold is no longer renewed nor interrupted: the few writes left finish within
 * the lease as it stands, and if the worker dies among them, another instance finishes them.
 */
class AgentLoop {

  private static final Logger log = LoggerFactory.getLogger(AgentLoop.class);

  /** Repair turns a final answer that breaks the output schema gets before the run fails. */
  static final int MAX_REPAIRS = 2;

  /**
   * Sub-agents one sweep takes up at most; the next sweep takes the rest. (Whole documents are
   * read: a projection would leave the record's primitive fields without a value to build it from.)
   */
  static final int SWEEP_BATCH = 100;

  /** How long a stopping service waits for its turns to stop before it lets go of their holds. */
  static final Duration STOP_GRACE = Duration.ofSeconds(5);

  /**
   * The statuses a turn's own outcome moves its sub-agent to before it moves the task ({@link
   * OutcomeRecorder#apply}): a turn whose worker died between the two is finished from them too.
   */
  private static final List<SubAgentStatus> SETTLED_BY_A_TURN =
      List.of(SubAgentStatus.completed, SubAgentStatus.waiting_for_user);

  /** The statuses in which a sub-agent may hold a turn: active, or {@link #SETTLED_BY_A_TURN}. */
  private static final List<SubAgentStatus> MAY_HOLD_A_TURN =
      List.of(SubAgentStatus.active, SubAgentStatus.completed, SubAgentStatus.waiting_for_user);

  private final MongoTemplate mongo;
  private final SubAgentConversations conversations;
  private final AgentCatalog agents;
  private final ModelCaller model;
  private final OutcomeRecorder recorder;
  private final OutputSchemaCheck outputs;
  private final RunLimits limits;
  private final Leases turns;
  private final ExecutorService workers;
  private final Duration eventWait;
  private final Duration resultWait;
  private final RunLedger ledger;
  private final StepStarts starts;
  private final ObservationRegistry observations;
  private final ToolDefinitions tools;
  private final TurnRequests turnRequests;
  private final KnownConversations known;
  private final Clock clock = Clock.systemUTC();
  private final EventLag lag = new EventLag(clock);

  /** How the waits of ends that found a message stored before its event came turned out. */
  private final WaitOutcomes eventWaits;

  /** How the waits of ends for the result of their turn's one tool call turned out. */
  private final WaitOutcomes resultWaits;

  /** The counters of one kind of wait, by what it gave. */
  private record WaitOutcomes(Counter came, Counter timedOut, Counter notWaited) {

    static WaitOutcomes register(MeterRegistry meters, String name, String description) {
      return new WaitOutcomes(
          counter(meters, name, description, "came"),
          counter(meters, name, description, "timed_out"),
          counter(meters, name, description, "not_waited"));
    }

    private static Counter counter(
        MeterRegistry meters, String name, String description, String outcome) {
      return Counter.builder(name)
          .description(description)
          .tag("outcome", outcome)
          .register(meters);
    }

    /** Counts a wait of up to {@code wait} (zero: not waited) that ended so; whether it came. */
    boolean count(boolean came, Duration wait) {
      (came ? this.came : wait.isZero() ? notWaited : timedOut).increment();
      return came;
    }
  }

  /**
   * The turns running on this instance's workers, from the worker's start until the end is written,
   * each with the wakes that came for its sub-agent meanwhile and read nothing ({@link #wake}).
   */
  private final ConcurrentHashMap<String, Wakes> turnsRunning = new ConcurrentHashMap<>();

  /**
   * How many wakes came for a running turn's sub-agent; counted in {@link #turnsRunning}. Not
   * counted: a wake for one of the messages the turn answers, a result whose event came after the
   * end of the turn before had read it and taken this turn for it ({@link #goOnAsKnown}). Its
   * message is looked at; counted, it would have the turn's end read the messages again.
   */
  private static final class Wakes {
    private final Set<String> answered;
    private final AtomicInteger count = new AtomicInteger();
    private final CountDownLatch first = new CountDownLatch(1);

    /** The event of the last wake counted, when it carried its message. */
    private volatile @Nullable SubAgentMessageAdded carried;

    /**
     * @param answered the ids of the messages the turn answers anew
     */
    Wakes(Set<String> answered) {
      this.answered = answered;
    }

    Wakes add(@Nullable String messageId, @Nullable SubAgentMessageAdded added) {
      if (messageId == null || !answered.contains(messageId)) {
        carried = added != null && added.message() != null ? added : null;
        count.incrementAndGet();
        first.countDown();
      }
      return this;
    }

    /** Waits up to {@code wait} for a wake to be counted, unless one was; whether one was. */
    boolean awaitOne(Duration wait) {
      try {
        return first.await(wait.toNanos(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }

    /** The message the one wake counted carried, or null: none, several, or not carried. */
    @Nullable SubAgentMessageAdded carriedAlone() {
      SubAgentMessageAdded last = carried; // set before it was counted
      return count.get() == 1 ? last : null;
    }

    int count() {
      return count.get();
    }
  }

  AgentLoop(
      MongoTemplate mongo,
      SubAgentConversations conversations,
      AgentCatalog agents,
      ModelCaller model,
      OutcomeRecorder recorder,
      OutputSchemaCheck outputs,
      RunLimits limits,
      Leases turns,
      ExecutorService workers,
      Duration eventWait,
      Duration resultWait,
      RunLedger ledger,
      StepStarts starts,
      ObservationRegistry observations,
      MeterRegistry meters,
      ConfigVersion config) {
    this.observations = observations;
    this.mongo = mongo;
    this.conversations = conversations;
    this.agents = agents;
    this.model = model;
    this.recorder = recorder;
    this.outputs = outputs;
    this.limits = limits;
    this.turns = turns;
    this.workers = workers;
    this.eventWait = eventWait;
    this.resultWait = resultWait;
    this.ledger = ledger;
    this.starts = starts;
    this.tools = new ToolDefinitions(mongo);
    this.turnRequests = new TurnRequests(agents, tools, config);
    this.known = new KnownConversations(conversations);
    this.eventWaits =
        WaitOutcomes.register(
            meters,
            "agentrt.agent-loop.event-waits",
            "Turn ends that found a message stored before its event came, by what the wait for"
                + " the event gave: came, timed_out (then the message was read), not_waited (events"
                + " were late: read at once)");
    this.resultWaits =
        WaitOutcomes.register(
            meters,
            "agentrt.agent-loop.result-waits",
            "Ends of turns that asked for one tool call, by what their wait for its result gave:"
                + " came (the next turn was taken in the end's write), timed_out (the turn ended"
                + " alone), not_waited (events were late, or result-wait is 0)");
    Gauge.builder("agentrt.agent-loop.event-lag", lag, l -> l.averageMillis() / 1000.0)
        .description(
            "How late the events that wake this instance's sub-agents come, on average (EventLag)")
        .baseUnit("seconds")
        .register(meters);
  }

  /**
   * Wakes the sub-agent by its id: reads it, unless this instance holds its turn or its worker is
   * still ending it. Then the worker looks at the conversation as it ends the turn ({@link
   * #endTurn}), told that a message came; and had the sub-agent been read, nothing would have come
   * of it: a live turn is left to its worker, and the take of one whose lease passed is refused
   * while this instance holds it ({@link Leases#take}), until the heartbeat finds the hold lost and
   * forgets it. So a message that comes while the turn before it still runs here, the usual case
   * for a fast tool's result, costs no read. A message that comes after a turn of this instance
   * ended with tool calls is looked at from what that turn knew ({@link #goOnAsKnown}).
   */
  void wake(String subAgentId) {
    wake(subAgentId, null);
  }

  /**
   * {@link #wake(String)} for the message with this id (null: not known which). A message this
   * instance has looked at already, a late or repeated event's, costs nothing: one that a running
   * turn answers ({@link Wakes}), or one in what a turn of this instance knew (the end of the turn
   * before read it). The messages after it have events of their own.
   */
  void wake(String subAgentId, @Nullable String messageId) {
    wake(subAgentId, messageId, null);
  }

  /**
   * {@link #wake(String, String)} for the message the event announces. When the event carries the
   * message and a turn of this instance knew the conversation up to just before it, the turn it
   * calls for is taken without reading anything ({@link #goOnWith}).
   */
  void wake(SubAgentMessageAdded added) {
    lag.saw(added.occurredAt());
    wake(added.subAgentId(), added.messageId(), added);
  }

  private void wake(
      String subAgentId, @Nullable String messageId, @Nullable SubAgentMessageAdded added) {
    if (turnsRunning.computeIfPresent(subAgentId, (id, wakes) -> wakes.add(messageId, added))
            != null
        || turns.holds(subAgentId)) {
      return;
    }
    KnownConversations.Known what = known.take(subAgentId);
    if (what != null && what.has(messageId)) {
      known.keep(what);
      return;
    }
    boolean carried = added != null && added.message() != null;
    if (what == null && carried && added.start() != null) {
      if (takeFirstTurn(added)) {
        return;
      }
    } else if (what != null && (carried ? goOnWith(what, added) : goOnAsKnown(what, false))) {
      return;
    }
    SubAgent subAgent = mongo.findById(subAgentId, SubAgent.class);
    if (subAgent != null) {
      wake(subAgent);
    }
  }

  private void wake(SubAgent subAgent) {
    boolean active = subAgent.status() == SubAgentStatus.active;
    if (!active && (subAgent.turn() == null || !SETTLED_BY_A_TURN.contains(subAgent.status()))) {
      return;
    }
    if (heldByALiveWorker(subAgent)) {
      return; // its worker looks at the conversation again as it ends the turn (endTurn)
    }
    ConversationState conversation = known.of(subAgent);
    AgentDefinition agent = agents.get(subAgent.agent());
    Optional<SubAgentMessage> abandoned = abandonedAnswer(subAgent, conversation);
    if (abandoned.isPresent()) {
      finishAbandonedTurn(subAgent, agent, conversation, abandoned.get());
      return;
    }
    if (!active) {
      return;
    }
    if (conversation.lastAnswer().isPresent()) {
      SubAgentMessage answer = conversation.lastAnswer().get();
      settle(subAgent, agent, conversation, answer, schemaProblems(agent, answer));
      return;
    }
    if (!conversation.awaitsModelTurn()) {
      return;
    }
    RunLimits.Effective run = limitsOf(subAgent, agent);
    Optional<LimitReached> reached = LimitReached.check(conversation, run, clock.instant());
    if (reached.isPresent()) {
      recorder.fail(
          subAgent,
          conversation.lastSeq(),
          reached.get().reason(),
          reached.get().message() + " " + conversation.progress());
      return;
    }
    if (conversation.repeatedCalls() == run.repeats()) {
      recorder.warnOfRepeats(subAgent, conversation, run.repeats());
      return; // the warning's event wakes the loop for the next turn
    }
    if (takeTurn(subAgent, conversation, run, Criteria.where("status").is(SubAgentStatus.active))) {
      if (conversation.hadApprovals()) {
        recorder.resumeAfterApprovals(subAgent);
      }
      startTurn(subAgent, agent, conversation, run);
    }
  }

  /**
   * Goes on from what a turn of this instance knew of the sub-agent, reading only the messages
   * after that turn's answer: as a wake after the turn ended, or as the turn ends when a message
   * came (a wake during it, or its conditional end missed: {@code ending}, the worker's hold
   * forgotten by {@link Leases#done}). Results while calls are still pending call for nothing (as
   * the sub-agent read would say too, whatever its status), and an ending turn is ended while
   * nothing else came; results that call for a model turn have it taken while the sub-agent is
   * still active, has just these messages, and is free, or, for an ending turn, still held here:
   * the end of one turn and the take of the next are then one write. An ending turn that finds
   * nothing new (the wake it was told of was for a message it had) is ended in the bulk write too,
   * and what it knew is kept for the wakes of its results. Anything else (a gap, a message from
   * elsewhere, a limit reached, approvals, a write that misses) is left to the wake that reads the
   * sub-agent, or the turn's usual end: false.
   */
  private boolean goOnAsKnown(KnownConversations.Known what, boolean ending) {
    Optional<ConversationState> read = what.with(known.newer(what));
    if (read.isEmpty()) {
      return false;
    }
    ConversationState conversation = read.get();
    String id = what.subAgent().id();
    Criteria unchanged = Criteria.where("messageCount").is(conversation.lastSeq());
    boolean nothingNew = conversation.lastSeq() == what.lastSeq();
    if (conversation.awaitsMoreResults() || nothingNew) {
      known.keep(new KnownConversations.Known(what.subAgent(), conversation.messages()));
      if (!ending) {
        // Nothing new after an answer: the wake that reads the sub-agent sees whether its turn
        // was abandoned (the sweep's wake of an expired turn), from what is kept here.
        return conversation.awaitsMoreResults();
      }
      return turns.endIfUnchanged(id, unchanged, new Update().unset("turn"));
    }
    if (!conversation.awaitsModelTurn() || conversation.hadApprovals()) {
      return false;
    }
    return takeAsKnown(what, conversation, ending);
  }

  /**
   * Goes on from what a turn of this instance knew and the message the event carried, which nothing
   * read: placed right after what is known. Only a write conditioned on the conversation counting
   * just these messages confirms that place (what is known runs without a gap, the message is not
   * among it, so it comes after; and it is stored, so within the count). The message is therefore
   * used only when, so placed, it calls for a model turn (the last result of the turn's calls), by
   * the take of that turn; anything else, or a take that misses, goes on from the messages read
   * after what is known ({@link #goOnAsKnown}).
   */
  private boolean goOnWith(KnownConversations.Known what, SubAgentMessageAdded added) {
    ConversationState conversation =
        what.with(List.of(KnownConversations.carried(added, what.lastSeq() + 1))).orElseThrow();
    if (conversation.awaitsModelTurn() && !conversation.hadApprovals()) {
      if (takeAsKnown(what, conversation, false)) {
        return true;
      }
      known.take(what.subAgent().id()); // kept by a take that missed; goOnAsKnown keeps its own
    }
    return goOnAsKnown(what, false);
  }

  /**
   * As a turn ends, goes on from what it knew and the one message whose event came during it,
   * carried, which nothing read: as {@link #goOnWith}, the message is used only when, placed right
   * after the answer, it calls for a model turn, by the write that ends this turn and takes that
   * one, conditioned on the conversation counting just it. Else (or when that write misses) false,
   * and the end reads the messages after the answer ({@link #goOnAsKnown}).
   */
  private boolean goOnEndingWith(KnownConversations.Known what, SubAgentMessageAdded added) {
    ConversationState conversation =
        what.with(List.of(KnownConversations.carried(added, what.lastSeq() + 1))).orElseThrow();
    if (conversation.awaitsModelTurn()
        && !conversation.hadApprovals()
        && takeAsKnown(what, conversation, true)) {
      return true;
    }
    known.take(what.subAgent().id()); // kept by a take that missed; goOnAsKnown keeps its own
    return false;
  }

  /**
   * Takes the first turn of a sub-agent from its instruction's event, which carries the sub-agent
   * as agent-init made it and its two messages: nothing is read. The take's condition (active,
   * free, counting two messages) confirms them: agent-init takes both places with one write on the
   * fresh sub-agent's count, so a count of two is its alone, and the event comes from the
   * instruction it stored. Anything else (a message came meanwhile, a start repeated after a crash,
   * a limit) goes to the wake that reads the sub-agent: false.
   */
  private boolean takeFirstTurn(SubAgentMessageAdded added) {
    KnownConversations.Known started = KnownConversations.started(added);
    ConversationState conversation =
        started.with(List.of(KnownConversations.carried(added, 2))).orElseThrow();
    if (conversation.awaitsModelTurn() && takeAsKnown(started, conversation, false)) {
      return true;
    }
    known.take(added.subAgentId()); // kept by a take that missed: nothing confirmed it
    return false;
  }

  /**
   * Takes the model turn the conversation, what is known and the messages after it, calls for,
   * unless a limit is reached: on condition that the sub-agent is still active with just these
   * messages, and free or, for an ending turn, still held here ({@link #goOnAsKnown}).
   */
  private boolean takeAsKnown(
      KnownConversations.Known what, ConversationState conversation, boolean ending) {
    String id = what.subAgent().id();
    Criteria unchanged = Criteria.where("messageCount").is(conversation.lastSeq());
    SubAgent subAgent = what.counting(conversation);
    AgentDefinition agent = agents.get(subAgent.agent());
    RunLimits.Effective run = limitsOf(subAgent, agent);
    if (LimitReached.check(conversation, run, clock.instant()).isPresent()
        || conversation.repeatedCalls() == run.repeats()) {
      return false;
    }
    Criteria as = Criteria.where("status").is(SubAgentStatus.active).andOperator(unchanged);
    Update turn = turnTaken(conversation, run);
    if (!(ending ? turns.takeNext(id, as, turn) : turns.take(id, as, turn))) {
      // For the wake that reads the sub-agent: what it knew, not the messages read since, which
      // nothing acted on (a message in what is known counts as looked at: wake). The take may have
      // missed because the end before it was made though its writer was told it was not
      // (BulkWrites#updateIfMatches); then only the event of one of those messages is left to
      // wake the sub-agent.
      known.keep(what);
      return false;
    }
    startTurn(subAgent, agent, conversation, run);
    return true;
  }

  /** Runs the turn just taken on a worker of its own, in an observation of the agent's. */
  private void startTurn(
      SubAgent subAgent,
      AgentDefinition agent,
      ConversationState conversation,
      RunLimits.Effective run) {
    turns.run(
        subAgent.id(),
        workers,
        () ->
            GenAi.invokeAgent(
                    observations,
                    subAgent.agent(),
                    subAgent.chatId(),
                    subAgent.taskId(),
                    subAgent.id())
                .observe(() -> runTurn(subAgent, agent, conversation, run)));
  }

  /**
   * Stops this instance's turns as the service stops: starts no more, interrupts those waiting for
   * the model (a turn past it gets a few seconds to finish its writes), then lets go of every hold,
   * so another instance takes the turns at once instead of after their leases.
   */
  void stop() {
    workers.shutdown();
    long until = System.nanoTime() + STOP_GRACE.toNanos();
    try {
      do {
        turns.heldIds().forEach(turns::interrupt);
      } while (!workers.awaitTermination(100, TimeUnit.MILLISECONDS) && System.nanoTime() < until);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    turns.releaseAll();
  }

  /**
   * Fails the run of a sub-agent whose deadline passed while nothing happened to it (no event woke
   * it); a run whose clock restarted meanwhile (the person answered) gets its new deadline, and one
   * waiting for a person's approval none until its next turn (time spent waiting for the person
   * does not count).
   */
  void enforceDeadline(String subAgentId) {
    SubAgent subAgent = mongo.findById(subAgentId, SubAgent.class);
    if (subAgent == null || subAgent.status() != SubAgentStatus.active) {
      return;
    }
    ConversationState conversation = new ConversationState(conversations.messages(subAgent.id()));
    if (conversation.awaitsApproval()) {
      mongo.updateFirst(
          Query.query(Criteria.where("_id").is(subAgent.id())),
          new Update().unset("deadline"),
          SubAgent.class);
      return;
    }
    RunLimits.Effective run = limitsOf(subAgent, agents.get(subAgent.agent()));
    Instant deadline = LimitReached.deadline(conversation, run);
    if (clock.instant().isAfter(deadline)) {
      recorder.fail(
          subAgent,
          conversation.lastSeq(),
          TaskFailed.TIMEOUT,
          LimitReached.timeout(conversation, run) + " " + conversation.progress());
    } else {
      mongo.updateFirst(
          Query.query(Criteria.where("_id").is(subAgent.id())),
          new Update().set("deadline", deadline),
          SubAgent.class);
    }
  }

  /**
   * Sub-agents whose turn's lease expired: their worker died mid-turn, or let go of it. Besides the
   * active ones, those its outcome had moved ({@link #SETTLED_BY_A_TURN}): the worker may have died
   * before it moved their task.
   */
  List<String> expiredTurns() {
    return ids(
        Query.query(Criteria.where("status").in(MAY_HOLD_A_TURN).andOperator(turns.expired())));
  }

  /**
   * Active sub-agents with no turn whose last message nobody looked at for a lease's time ({@link
   * SubAgent#UNLOOKED_SINCE}): far longer than an event takes, and than a listener retries before
   * it dead-letters one, so the event that announced the message was lost.
   */
  List<String> unlookedMessages() {
    return activeWhere(
        Criteria.where("turn")
            .is(null)
            .and(SubAgent.UNLOOKED_SINCE)
            .lt(clock.instant().minus(turns.duration())));
  }

  /**
   * Wakes the sub-agent as its message's event would have, then marks its conversation looked at
   * unless a message came meanwhile (that one has its own event, or the next sweep).
   */
  void lookAgain(String subAgentId) {
    SubAgent subAgent = mongo.findById(subAgentId, SubAgent.class);
    if (subAgent == null) {
      return;
    }
    wake(subAgent);
    mongo.updateFirst(
        Query.query(
            Criteria.where("_id").is(subAgentId).and("messageCount").is(subAgent.messageCount())),
        new Update().unset(SubAgent.UNLOOKED_SINCE),
        SubAgent.class);
  }

  /**
   * Failed sub-agents whose failure was recorded a lease's time ago and not finished: the worker
   * died before it failed their task ({@link OutcomeRecorder#recordFailure}).
   */
  List<String> unfinishedFailures() {
    return recorder.unfinishedFailures(clock.instant().minus(turns.duration()), SWEEP_BATCH);
  }

  /** Fails the task of a sub-agent whose failure was recorded, as its worker would have. */
  void finishFailure(String subAgentId) {
    recorder.finishFailure(subAgentId);
  }

  /** Active sub-agents whose run's deadline has passed. */
  List<String> overdueRuns() {
    return activeWhere(Criteria.where("deadline").lt(clock.instant()));
  }

  /** The ids of up to {@link #SWEEP_BATCH} active sub-agents that also match {@code which}. */
  private List<String> activeWhere(Criteria which) {
    return ids(Query.query(Criteria.where("status").is(SubAgentStatus.active).andOperator(which)));
  }

  private List<String> ids(Query subAgents) {
    return mongo.find(subAgents.limit(SWEEP_BATCH), SubAgent.class).stream()
        .map(SubAgent::id)
        .toList();
  }

  /** The limits of the sub-agent's run, with its caller's deadline for a child task's. */
  private RunLimits.Effective limitsOf(SubAgent subAgent, AgentDefinition agent) {
    return limits.of(
        agent,
        chatLimits(subAgent),
        subAgent.settings() == null ? null : subAgent.settings().callerDeadline());
  }

  /**
   * The chat's limits, which the sub-agent carries; only a sub-agent stored before sub-agents
   * carried them has the chat read.
   */
  private @Nullable ChatLimits chatLimits(SubAgent subAgent) {
    if (subAgent.settings() != null) {
      return subAgent.settings().limits();
    }
    Query chat = Query.query(Criteria.where("_id").is(subAgent.chatId()));
    chat.fields().include("limits");
    Chat found = mongo.findOne(chat, Chat.class);
    return found == null ? null : found.limits();
  }

  /** The turn, on its worker, registered in {@link #turnsRunning} while it runs. */
  private void runTurn(
      SubAgent subAgent,
      AgentDefinition agent,
      ConversationState conversation,
      RunLimits.Effective run) {
    Wakes wakes = new Wakes(conversation.idsSinceLastAnswer());
    turnsRunning.put(subAgent.id(), wakes);
    try {
      runTurn(subAgent, agent, conversation, run, wakes);
    } finally {
      turnsRunning.remove(subAgent.id(), wakes);
    }
  }

  /**
   * The turn: asks the model, then stores and carries out its answer, with what the turn was given
   * ({@link TurnRequests.Turn#input()}). Interrupted while it waits for the model (cancelled, taken
   * by another instance, or the service stopping), it stores nothing, records no error and lets go
   * of the turn.
   *
   * <p>The turn is a step of the ledger ({@code step_start} … {@code step_end}); its {@code stepId}
   * is the id its answer gets, derived from the sub-agent and the newest message it answers, so a
   * turn taken again after a crash, or an event recorded twice, has the same one. A model that
   * answers within {@code agentrt.agent-loop.start-shown-after} has the turn's start recorded with
   * its end, in one insert ({@link StepStarts}); a turn that ends without an answer stored has its
   * start recorded on its own as it ends.
   */
  private void runTurn(
      SubAgent subAgent,
      AgentDefinition agent,
      ConversationState conversation,
      RunLimits.Effective run,
      Wakes wakes) {
    String id = subAgent.id();
    long seq = conversation.lastSeq();
    int step = conversation.stepsThisRun() + 1;
    int turn = conversation.turns() + 1;
    String stepId = OutcomeRecorder.answerId(id, seq);
    String modelName;
    TurnRequests.Turn request;
    ModelReply reply;
    long latencyMs;
    StepStarts.@Nullable Start start = null;
    try {
      modelName = modelFor(subAgent, agent);
      request = turnRequests.of(agent, conversation.messages(), modelName);
      if (conversation.resultsSinceLastAnswer()) {
        ledger.othersWrote(subAgent.chatId());
      }
      start =
          starts.begin(
              subAgent.chatId(),
              RunLedger.Step.of(
                  subAgent,
                  "step_start/" + id + "/" + seq,
                  RunEvent.STEP_START,
                  RunLedger.data(
                      "step", step, "turn", turn, "stepId", stepId, "model", modelName)));
      long started = System.nanoTime();
      reply = model.call(request.request());
      latencyMs = (System.nanoTime() - started) / 1_000_000;
    } catch (RuntimeException e) {
      boolean interrupted = Thread.interrupted();
      if (start != null) {
        start.alone();
      }
      if (interrupted) {
        log.info(
            "turn {} of sub-agent {} stopped while the model thought (cancelled, taken over, or"
                + " the service stopping); it stores nothing",
            seq,
            id);
        turns.release(id);
      } else if (e instanceof ModelException failure) {
        Query end = turns.done(id);
        recorder.fail(subAgent, seq, "model_error", failure.getMessage());
        mongo.updateFirst(end, new Update().unset("turn"), SubAgent.class);
      } else {
        log.error("turn {} of sub-agent {} failed; the next sweep takes it again", seq, id, e);
        turns.release(id);
      }
      return;
    }
    // The model has answered: from here no renewal or interruption reaches this worker (its own
    // writes may end the sub-agent's run), and the turn is ended by the query done() returns.
    Query end = turns.done(id);
    if (Thread.interrupted()) {
      log.info("turn {} of sub-agent {} was stopped as the model answered; dropped", seq, id);
      start.alone();
      turns.release(id);
      return;
    }
    try {
      Optional<OutcomeRecorder.StoredAnswer> stored =
          recorder.storeAnswer(
              subAgent,
              seq,
              reply,
              modelName,
              request.input(),
              tool -> tools.needsApproval(agent, tool),
              step == 1,
              conversation.delegated());
      if (stored.isEmpty()) {
        log.info(
            "sub-agent {} stopped (cancelled, or failed by a limit) during its turn; the answer is dropped",
            id);
        start.alone();
        mongo.updateFirst(end, new Update().unset("turn"), SubAgent.class);
        return;
      }
      SubAgentMessage answer = stored.get().answer();
      List<String> problems = schemaProblems(agent, answer);
      long used = tokensUsed(conversation, stored.get());
      // The step's end, a budget warning when due and a kept final answer's run end: one append
      // (one insert; its start's too, unless shown on its own), with the answer's tokens for the
      // chat's usage when they count there.
      List<RunLedger.Step> recorded = new ArrayList<>(3);
      recorded.add(stepEnd(subAgent, step, turn, modelName, reply, answer, latencyMs, problems));
      if (used >= run.warnTokens()) {
        recorded.add(budgetWarning(subAgent, conversation, run, used));
      }
      if (problems == null || problems.isEmpty()) {
        runEnd(subAgent, answer).ifPresent(recorded::add);
      }
      start.withEnd(recorded, stored.get().chatUsage());
      boolean resultDue = false;
      if (withinBudget(subAgent, conversation, run, answer, used)) {
        settle(subAgent, agent, conversation, answer, problems);
        if (TurnOutcome.of(answer) instanceof TurnOutcome.ToolCalls calls) {
          known.keep(subAgent, conversation, answer); // for the wakes of their results
          resultDue = oneResultDue(calls);
        }
      }
      if (resultDue) {
        awaitResult(wakes);
      }
      endTurn(end, answer, wakes);
    } catch (RuntimeException e) {
      Thread.interrupted(); // not to fail the write that lets go of the turn as well
      start.alone();
      log.error("turn {} of sub-agent {} failed; the next sweep finishes it", seq, id, e);
      turns.release(id);
    }
  }

  /**
   * The run's tokens so far, this turn's included. The run is the tree's: the root task's and all
   * its descendants' turns since the root's run started, as the write that counted the turn
   * returned it ({@link Task#RUN_TOKENS}); a child's limit is its root's, since both come from the
   * same settings and chat. The conversation's own count stands in when that write counted nothing
   * (the answer was stored before).
   */
  private static long tokensUsed(
      ConversationState conversation, OutcomeRecorder.StoredAnswer stored) {
    SubAgentMessage answer = stored.answer();
    return Math.max(
        stored.runTokens(),
        conversation.tokensThisRun()
            + (answer.usage() == null
                ? 0
                : answer.usage().promptTokens() + answer.usage().completionTokens()));
  }

  /**
   * Whether the run may go on with the stored turn, {@code used} tokens into its budget: when the
   * budget is used up, a run that would go on (tool calls, a question) fails with {@code
   * budget_exceeded} instead. A final answer is kept: the work is done.
   */
  private boolean withinBudget(
      SubAgent subAgent,
      ConversationState conversation,
      RunLimits.Effective run,
      SubAgentMessage answer,
      long used) {
    if (used >= run.maxTokens() && !(TurnOutcome.of(answer) instanceof TurnOutcome.FinalAnswer)) {
      recorder.dropCalls(answer, TaskFailed.BUDGET_EXCEEDED);
      recorder.fail(
          subAgent,
          answer.seq(),
          TaskFailed.BUDGET_EXCEEDED,
          LimitReached.budget(used, run)
              + " "
              + new ConversationState(conversations.messages(subAgent.id())).progress());
      return false;
    }
    return true;
  }

  /**
   * The end of the step whose answer is stored; {@code validationOk} only for a final answer
   * checked against the agent's output schema.
   */
  private static RunLedger.Step stepEnd(
      SubAgent subAgent,
      int step,
      int turn,
      @Nullable String modelName,
      ModelReply reply,
      SubAgentMessage answer,
      long latencyMs,
      @Nullable List<String> schemaProblems) {
    Map<String, Object> data =
        new LinkedHashMap<>(
            RunLedger.data(
                "step",
                step,
                "turn",
                turn,
                "stepId",
                answer.id(),
                "model",
                modelName,
                "inputTokens",
                reply.usage() == null ? 0 : reply.usage().promptTokens(),
                "outputTokens",
                reply.usage() == null ? 0 : reply.usage().completionTokens(),
                "latencyMs",
                latencyMs,
                "toolCalls",
                reply.toolCalls().stream().map(ModelToolCall::name).toList(),
                "text",
                RunLedger.excerpt(reply.content())));
    if (schemaProblems != null) {
      data.put("validationOk", schemaProblems.isEmpty());
    }
    return RunLedger.Step.of(subAgent, "step_end/" + answer.id(), RunEvent.STEP_END, data);
  }

  /** The run has used {@code warnAt} of its tokens: one warning per run. */
  private static RunLedger.Step budgetWarning(
      SubAgent subAgent, ConversationState conversation, RunLimits.Effective run, long used) {
    return RunLedger.Step.of(
        subAgent,
        "budget_warning/" + subAgent.id() + "/" + conversation.runStartSeq(),
        RunEvent.BUDGET_WARNING,
        RunLedger.data("limit", "tokens", "used", used, "max", run.maxTokens()));
  }

  /**
   * The run's end, when the answer is final (and the run keeps it). It must be in the ledger before
   * the task's write takes the event that ends it (the relay may publish it whenever this process
   * is slow), so that the answer the event leads to comes after it; recorded again on a redelivery,
   * it is kept once.
   */
  private static Optional<RunLedger.Step> runEnd(SubAgent subAgent, SubAgentMessage answer) {
    return TurnOutcome.of(answer) instanceof TurnOutcome.FinalAnswer finalAnswer
        ? Optional.of(
            RunLedger.Step.of(
                subAgent,
                "run_end/" + answer.id(),
                RunEvent.RUN_END,
                RunLedger.data(
                    "status",
                    "completed",
                    "reason",
                    null,
                    "result",
                    RunLedger.excerpt(finalAnswer.answer()))))
        : Optional.empty();
  }

  /**
   * What is wrong with a final answer by the agent's output schema (nothing when it is right); null
   * when no schema applies: the agent has none, or the answer is not final.
   */
  private @Nullable List<String> schemaProblems(AgentDefinition agent, SubAgentMessage answer) {
    return agent.outputSchema() != null
            && TurnOutcome.of(answer) instanceof TurnOutcome.FinalAnswer finalAnswer
        ? outputs.problems(agent.outputSchema(), finalAnswer.answer())
        : null;
  }

  /**
   * Carries out a stored answer. A final answer that breaks the agent's output schema ({@code
   * schemaProblems}, see {@link #schemaProblems}) is sent back for repair, twice at most; a third
   * such answer fails the run with {@code validation_error}.
   */
  private void settle(
      SubAgent subAgent,
      AgentDefinition agent,
      ConversationState conversation,
      SubAgentMessage answer,
      @Nullable List<String> problems) {
    if (problems != null) {
      if (!problems.isEmpty()) {
        if (conversation.repairsThisRun() < MAX_REPAIRS) {
          recorder.askForRepair(subAgent, answer, problems, agent.outputSchema());
        } else {
          recorder.fail(
              subAgent,
              answer.seq(),
              "validation_error",
              "the final answer still breaks the output schema after "
                  + MAX_REPAIRS
                  + " repairs: "
                  + String.join("; ", problems));
        }
        return;
      }
    }
    recorder.apply(subAgent, answer);
  }

  /**
   * The model of the turn: the task's (chosen for the message or the chat that started it), which
   * the sub-agent carries, else the agent's; null asks for the default model. Only a sub-agent
   * stored before sub-agents carried it has the task read.
   */
  private @Nullable String modelFor(SubAgent subAgent, AgentDefinition agent) {
    String chosen;
    if (subAgent.settings() != null) {
      chosen = subAgent.settings().model();
    } else {
      Task task = mongo.findById(subAgent.taskId(), Task.class);
      chosen = task == null ? null : task.model();
    }
    return chosen != null ? chosen : agent.model();
  }

  /**
   * Takes the turn unless another worker holds it or the sub-agent no longer matches {@code as},
   * recording the messages it answers and when the run must end (for {@link #overdueRuns}) in the
   * same write, which also marks the conversation looked at: a message that comes during the turn
   * is looked at as the turn ends ({@link #endTurn}).
   */
  private boolean takeTurn(
      SubAgent subAgent, ConversationState conversation, RunLimits.Effective run, Criteria as) {
    return turns.take(subAgent.id(), as, turnTaken(conversation, run));
  }

  /** What the write that takes a turn sets: see {@link #takeTurn}. */
  private static Update turnTaken(ConversationState conversation, RunLimits.Effective run) {
    return new Update()
        .set("turn.seq", conversation.lastSeq())
        .set("deadline", LimitReached.deadline(conversation, run))
        .unset(SubAgent.UNLOOKED_SINCE);
  }

  /** Whether a worker holds the sub-agent's turn and its lease has not passed. */
  private boolean heldByALiveWorker(SubAgent subAgent) {
    SubAgent.Turn turn = subAgent.turn();
    return turn != null && !turn.leaseUntil().isBefore(clock.instant());
  }

  /**
   * The answer stored in the sub-agent's turn if that turn's lease expired: the worker that stored
   * it died (or stalled, or stopped) before ending the turn. Read from what the wake-up read
   * anyway.
   */
  private Optional<SubAgentMessage> abandonedAnswer(
      SubAgent subAgent, ConversationState conversation) {
    SubAgent.Turn turn = subAgent.turn();
    if (turn == null || heldByALiveWorker(subAgent)) {
      return Optional.empty();
    }
    String answerId = OutcomeRecorder.answerId(subAgent.id(), turn.seq());
    return conversation.messages().stream().filter(m -> m.id().equals(answerId)).findFirst();
  }

  /**
   * Finishes the turn of a worker that stored its answer and did not end the turn: it may not have
   * recorded the answer's tool calls, and until they are, no tool message can come; or it moved the
   * sub-agent (completed, waiting for the person) and not yet its task, which nothing else would
   * ever move. The expired turn is taken first, so of two instances sweeping at once one finishes
   * it; it is not renewed, as the writes left take far less than a lease.
   */
  private void finishAbandonedTurn(
      SubAgent subAgent,
      AgentDefinition agent,
      ConversationState conversation,
      SubAgentMessage answer) {
    String id = subAgent.id();
    Criteria sameTurn =
        Criteria.where("status").is(subAgent.status()).and("turn.seq").is(subAgent.turn().seq());
    if (!turns.take(id, sameTurn, new Update())) {
      return; // another instance finishes it
    }
    Query end = turns.done(id);
    try {
      recorder.recordCalls(subAgent, answer);
      settle(subAgent, agent, conversation, answer, schemaProblems(agent, answer));
      endTurn(end, answer, null);
    } catch (RuntimeException e) {
      turns.release(id);
      throw e;
    }
  }

  /**
   * Whether the turn asked for one call whose result a tool-runner sends (its event wakes the
   * sub-agent): not a call that waits for a person's approval, nor a task for another agent.
   */
  private static boolean oneResultDue(TurnOutcome.ToolCalls calls) {
    if (calls.calls().size() != 1) {
      return false;
    }
    RequestedToolCall call = calls.calls().getFirst();
    return !call.gated() && !Delegations.isDelegation(call);
  }

  /**
   * Before the turn of one tool call ends, waits up to {@code resultWait} for a wake, mostly the
   * call's result: a fast tool's result whose event comes meanwhile has the next turn taken by the
   * write that ends this one ({@link #endTurn}), one write instead of the end's and the take's. The
   * wait costs a parked worker, no one's time: the result comes when it comes, and a wake that
   * comes for the sub-agent while its turn is held here is counted for the end. It waits only while
   * events come promptly ({@link EventLag}), as the end's wait for an event does.
   */
  private void awaitResult(Wakes wakes) {
    Duration wait = lag.waitFor(resultWait);
    resultWaits.count(wakes.awaitOne(wait), wait);
  }

  /**
   * Ends the turn whose answer is stored and carried out, with the query {@link Leases#done} gave.
   * When no wake came for it here, the turn ends in the process's bulk write on condition that the
   * conversation still ends with the answer, and returns nothing. A message that arrived during the
   * turn (a follow-up while the model thought, a fast tool's result while the outcome was applied,
   * or as the end was written) found the turn taken: it is looked at now. After tool calls, from
   * what the turn knew and the messages after its answer ({@link #goOnAsKnown}): results that call
   * for the next turn have it taken in the write that ends this one ({@link Leases#takeNext}), in
   * the bulk write, without the sub-agent read. Else, or when that write misses, from the sub-agent
   * as the {@code findAndModify} that ends the turn returns it. A wake that came while the end was
   * written read nothing either: the sub-agent is woken again, read after the end.
   *
   * <p>An end in the bulk write that misses though no wake came (a fast tool's result stored before
   * the end, its event not here yet) waits up to {@code eventWait} for that event: it carries the
   * result, which then needs no read ({@link #goOnEndingWith}), and the ledger's position its
   * publisher knew, which the next step's {@code step_start} then needs no read for either. It
   * waits only while events come promptly ({@link EventLag}): when the consumer lags (a burst), the
   * event is queued behind others, and waiting would add that queue to the round. An event that
   * does not come in time (it went to another instance, or its publisher died before sending it)
   * leaves the end to read the messages after its answer, as it would have.
   *
   * @param wakes the wakes that came during the turn, from {@link #turnsRunning}; null for a turn
   *     this worker finishes for another
   */
  private void endTurn(Query end, SubAgentMessage answer, @Nullable Wakes wakes) {
    String id = answer.subAgentId();
    int woken = wakes == null ? 0 : wakes.count();
    boolean ended =
        woken == 0
            && turns.endIfUnchanged(
                id, Criteria.where("messageCount").is(answer.seq()), new Update().unset("turn"));
    if (!ended) {
      KnownConversations.Known knew = known.take(id);
      if (knew != null && knew.lastSeq() == answer.seq()) {
        // A message came as the end was written; its event, mostly on its way, carries it.
        if (woken == 0 && wakes != null) {
          Duration wait = lag.waitFor(eventWait);
          if (!eventWaits.count(wakes.awaitOne(wait), wait)) {
            log.debug(
                "no event within {} for what came after answer {} (events {} ms late); reading",
                wait,
                answer.id(),
                lag.averageMillis());
          }
        }
        // The one wake may have come during the end in the bulk write, which its message missed.
        SubAgentMessageAdded alone = wakes == null ? null : wakes.carriedAlone();
        if (alone != null && goOnEndingWith(knew, alone)) {
          ended = true;
          woken = 1; // its wake is answered: no look again below
        } else {
          ended = goOnAsKnown(knew, true);
        }
      }
    }
    Document returned = null;
    if (!ended) {
      // By collection name, as Leases writes: mapped against SubAgent, the lease's path costs
      // Spring Data a thrown and caught exception.
      returned =
          mongo.findAndModify(
              end,
              new Update().unset("turn"),
              FindAndModifyOptions.options().returnNew(true),
              Document.class,
              Collections.SUB_AGENTS);
    }
    if (wakes != null && turnsRunning.remove(id, wakes) && wakes.count() > woken) {
      wake(id);
    } else if (returned != null
        && ((Number) returned.get("messageCount")).longValue() > answer.seq()) {
      wake(mongo.getConverter().read(SubAgent.class, returned));
    }
  }
}
