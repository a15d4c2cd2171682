package dev.agentrt.orchestrator.decision;

import static dev.agentrt.orchestrator.decision.MessageOutcomes.ANSWER;
import static dev.agentrt.orchestrator.decision.MessageOutcomes.FOLLOW_UP;
import static dev.agentrt.orchestrator.decision.MessageOutcomes.PLAN;
import static dev.agentrt.orchestrator.decision.MessageOutcomes.TASK;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.EventCodec;
import dev.agentrt.model.ModelMessage;
import dev.agentrt.orchestrator.chat.ChatAccess;
import dev.agentrt.orchestrator.chat.ToolCallApprovals;
import dev.agentrt.orchestrator.decision.Decider.Decided;
import dev.agentrt.orchestrator.security.Users;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.platform.BulkWrites.Stored;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatLimits;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.Appended;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.store.UsageCounter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

/**
 * What a person's message leads to, decided once. In order:
 *
 * <ol>
 *   <li>An outcome stored earlier for this message (decided before a crash) is finished and
 *       returned; the model is not asked again.
 *   <li>If a task of the chat waits for the person's answer, the message is that answer: it goes to
 *       the sub-agent as the result of its {@code ask_user} call. No model call.
 *   <li>If a call of the chat awaits approval and the message says "approve" or "reject: …", the
 *       message decides it ({@link ToolCallApprovals}). No model call.
 *   <li>Otherwise the model decides: answer, new task, or follow-up to an earlier sub-agent.
 * </ol>
 *
 * Every outcome is one document whose id derives from the person's message, written with its event
 * in its outbox; the caller publishes it. Statuses then move by conditional updates. The model that
 * decides is the one chosen for the message, else for the chat (null: the default); a task the
 * decision starts keeps it ({@code Task.model}). The decision's tokens are added to the chat's sums
 * by the write that inserts its outcome, so a redelivered message counts nothing again.
 */
@Component
class Orchestrator {

  private static final List<SubAgentStatus> WAKEABLE_SUB_AGENT =
      List.of(SubAgentStatus.completed, SubAgentStatus.waiting_for_user);
  private static final List<TaskStatus> WAKEABLE_TASK =
      List.of(TaskStatus.success, TaskStatus.waiting);

  private final MongoTemplate mongo;
  private final BulkWrites writes;
  private final SubAgentConversations conversations;
  private final AgentCatalog agents;
  private final Decider decider;
  private final EventCodec codec;
  private final OrchestratorProperties properties;
  private final RunLedger ledger;
  private final WaitingQuestions questions;
  private final ToolCallApprovals approvals;
  private final ChatPlans plans;
  private final DecisionChecks checks;
  private final LowConfidence lowConfidence;
  private final Clock clock = Clock.tickMillis(ZoneOffset.UTC); // as precise as MongoDB

  Orchestrator(
      MongoTemplate mongo,
      BulkWrites writes,
      SubAgentConversations conversations,
      AgentCatalog agents,
      Decider decider,
      EventCodec codec,
      OrchestratorProperties properties,
      RunLedger ledger,
      WaitingQuestions questions,
      ToolCallApprovals approvals,
      ChatPlans plans,
      RoutingProperties routing) {
    this.mongo = mongo;
    this.writes = writes;
    this.conversations = conversations;
    this.agents = agents;
    this.decider = decider;
    this.codec = codec;
    this.properties = properties;
    this.ledger = ledger;
    this.questions = questions;
    this.approvals = approvals;
    this.plans = plans;
    this.checks = new DecisionChecks(mongo, agents, plans);
    this.lowConfidence = new LowConfidence(routing, agents);
  }

  /**
   * Carries out the message: what an earlier try stored for it, else the answer to a question that
   * waits, else the decision on a call that awaits approval, else the model's decision. Only a
   * message tried before can have a stored outcome ({@code triedBefore}: its decider died, or lost
   * its hold, after writing it); the first try does not look for one.
   */
  Publication handle(ChatMessage message, boolean triedBefore) {
    Optional<Publication> stored = triedBefore ? storedOutcome(message) : Optional.empty();
    if (stored.isPresent()) {
      return stored.get();
    }
    // Read once for both the question that may wait and the decision's context.
    List<Task> tasks =
        mongo.find(
            Query.query(Criteria.where("chatId").is(message.chatId()))
                .with(Sort.by("createdAt", "id")),
            Task.class);
    return routeToWaitingSubAgent(message, tasks)
        .or(() -> decideWaitingApproval(message))
        .orElseGet(
            () -> {
              Chosen chosen = chosenFor(message);
              return carryOut(
                  message,
                  chosen,
                  decide(message, chosen.model(), startedTasks(message.chatId(), tasks)));
            });
  }

  /**
   * Answers the person with an apology instead of a decision: for a message whose decision failed
   * again and again, so that its chat moves on.
   */
  Publication apologise(ChatMessage message) {
    return answer(
        message,
        null,
        new Decided(new Decision.Answer(Decider.APOLOGY), TurnUsage.NONE, 0),
        Decider.APOLOGY,
        Map.of());
  }

  /**
   * What was chosen for the message's decision and the task it may start.
   *
   * @param model the model chosen for the message, else the one chosen for its chat; null for the
   *     default. It makes the decision and goes on the task the decision starts.
   * @param chatLimits the chat's limits as the message carries them (read as it was admitted) or as
   *     the chat was read for the model ({@link ChatLimits#NONE}: it has none), which the task's
   *     event carries; null when they were not read
   */
  private record Chosen(@Nullable String model, @Nullable ChatLimits chatLimits) {}

  private Chosen chosenFor(ChatMessage message) {
    if (message.chat() != null) { // read as the message was admitted
      return new Chosen(
          message.model() != null ? message.model() : message.chat().model(),
          message.chat().limits());
    }
    if (message.model() != null) {
      return new Chosen(message.model(), null);
    }
    Chat chat = mongo.findById(message.chatId(), Chat.class);
    return chat == null
        ? new Chosen(null, null)
        : new Chosen(chat.model(), Objects.requireNonNullElse(chat.limits(), ChatLimits.NONE));
  }

  // --- 0. handled before --------------------------------------------------------------------

  private Optional<Publication> storedOutcome(ChatMessage message) {
    ChatMessage answer = mongo.findById(Ids.derived(message.id(), ANSWER), ChatMessage.class);
    if (answer != null) {
      return Optional.of(new Publication(Collections.CHAT_MESSAGES, answer.id(), answer.outbox()));
    }
    Task task = mongo.findById(Ids.derived(message.id(), TASK), Task.class);
    if (task != null) {
      return Optional.of(new Publication(Collections.TASKS, task.id(), task.outbox()));
    }
    Optional<Publication> plan = plans.started(message);
    if (plan.isPresent()) {
      return plan;
    }
    for (String purpose : List.of(ANSWER, FOLLOW_UP)) {
      SubAgentMessage sent =
          mongo.findById(Ids.derived(message.id(), purpose), SubAgentMessage.class);
      if (sent != null) {
        SubAgent subAgent = mongo.findById(sent.subAgentId(), SubAgent.class);
        if (subAgent != null) {
          return Optional.of(wake(subAgent, sent));
        }
      }
    }
    return Optional.empty();
  }

  // --- 1. the answer to a sub-agent's question ---------------------------------------------

  /**
   * The question of the chat that waits for the person, if any: this message answers it.
   *
   * @param tasks all the chat's tasks
   */
  private Optional<Publication> routeToWaitingSubAgent(ChatMessage message, List<Task> tasks) {
    return questions
        .latestAmong(tasks)
        .map(
            waiting -> {
              SubAgent subAgent = waiting.subAgent();
              String id = Ids.derived(message.id(), ANSWER);
              Instant now = clock.instant();
              SubAgentMessage answer =
                  conversations.append(
                      subAgent,
                      new NewMessage(
                          id,
                          SubAgentMessage.TOOL,
                          message.content(),
                          List.of(),
                          waiting.askUserCallId(),
                          List.of(messageAdded(subAgent, id, SubAgentMessage.TOOL, now))),
                      now);
              ledger.append(
                  subAgent,
                  "user_answer/" + id,
                  RunEvent.USER_ANSWER,
                  RunLedger.data(
                      "toolCallId",
                      waiting.askUserCallId(),
                      "answer",
                      RunLedger.excerpt(message.content())));
              return wake(subAgent, answer);
            });
  }

  // --- 2. a decision on a call that awaits approval ----------------------------------------

  /**
   * "approve" or "reject: …" while a call of the chat awaits approval decides the latest such call,
   * as {@code POST /api/chats/{id}/feedback} would, by the chat's owner; the decision records this
   * message, so the message redelivered finds its call decided and decides nothing more. Any other
   * message goes on to the model.
   */
  private Optional<Publication> decideWaitingApproval(ChatMessage message) {
    Optional<ApprovalWords.Verdict> verdict = ApprovalWords.read(message.content());
    if (verdict.isEmpty()) {
      return Optional.empty(); // only a message that reads as a verdict ever decides a call
    }
    if (approvals.decidedBy(message.id()).isPresent()) {
      return Optional.of(new Publication(Collections.CHAT_MESSAGES, message.id(), List.of()));
    }
    Optional<ToolCall> awaiting = approvals.awaitingIn(message.chatId());
    if (awaiting.isEmpty()) {
      return Optional.empty();
    }
    Chat chat = mongo.findById(message.chatId(), Chat.class);
    approvals.decide(
        message.chatId(),
        awaiting.get().id(),
        verdict.get().approved(),
        verdict.get().reason(),
        chat == null ? Users.LOCAL : ChatAccess.ownerOf(chat),
        message.id());
    return Optional.of(new Publication(Collections.CHAT_MESSAGES, message.id(), List.of()));
  }

  // --- 3. the model's decision -------------------------------------------------------------

  /**
   * Of the chat's tasks, oldest first, those the orchestrator started: a child task belongs to the
   * agent that started it, a plan's node to its plan (its outcome is the plan's, not the chat's).
   * The chat's plans are read only when it has such tasks at all: a chat's first message reads
   * none.
   */
  private List<Task> startedTasks(String chatId, List<Task> chatTasks) {
    List<Task> started = chatTasks.stream().filter(t -> t.delegation() == null).toList();
    if (started.isEmpty()) {
      return started;
    }
    Set<String> planNodes = Set.copyOf(plans.nodeTaskIds(chatId));
    return started.stream().filter(t -> !planNodes.contains(t.id())).toList();
  }

  /** The model's decision, with the tasks the orchestrator started in the chat as context. */
  private Decided decide(ChatMessage message, @Nullable String model, List<Task> tasks) {
    List<AgentDefinition> available = agents.all();
    List<ModelMessage> prompt = DecisionPrompt.messages(available, tasks, history(message));
    return decider.decide(
        prompt, model, decision -> checks.check(decision, message.chatId(), tasks));
  }

  /**
   * The chat's last messages as they stand now, oldest first and this one last, without the
   * person's later messages (each is decided after this one, in order). An answer to an earlier
   * message that came after this one was sent is shown before it: the decision sees what the
   * messages before it led to.
   */
  private List<ChatMessage> history(ChatMessage message) {
    List<ChatMessage> latest =
        mongo.find(
            Query.query(
                    Criteria.where("chatId")
                        .is(message.chatId())
                        .orOperator(
                            Criteria.where("createdAt").lte(message.createdAt()),
                            Criteria.where("role").ne(ChatMessage.USER)))
                .with(Sort.by(Sort.Direction.DESC, "createdAt", "id"))
                .limit(properties.historySize()),
            ChatMessage.class);
    List<ChatMessage> history = new ArrayList<>(latest.reversed());
    history.removeIf(m -> m.id().equals(message.id()));
    history.add(message);
    return history;
  }

  /**
   * Writes the decision's outcome. The decision's tokens are added to the chat's sums with the
   * ledger's append of the outcome's first run event, when this decision inserted the outcome;
   * finding it written meanwhile (a concurrent copy) counts nothing.
   */
  private Publication carryOut(ChatMessage message, Chosen chosen, Decided decided) {
    String model = chosen.model();
    Map<String, Long> tokens = UsageCounter.counts(model, decided.usage(), decided.turns());
    return switch (decided.decision()) {
      case Decision.Answer answer -> answer(message, model, decided, answer.answer(), tokens);
      case Decision.NewTask newTask ->
          lowConfidence
              .route(newTask)
              .map(route -> startTask(message, chosen, newTask, route, tokens))
              .orElseGet(() -> answer(message, model, decided, LowConfidence.CLARIFY, tokens));
      case Decision.Reactivate reactivate -> followUp(message, reactivate, tokens);
      case Decision.Plan plan -> {
        plans.start(message, model, plan, tokens);
        yield ChatPlans.publication(Ids.derived(message.id(), PLAN));
      }
    };
  }

  /** {@code tokens}: what the answer adds to the chat's sums when this call inserts it. */
  private Publication answer(
      ChatMessage message,
      @Nullable String model,
      Decided decided,
      String text,
      Map<String, Long> tokens) {
    String id = Ids.derived(message.id(), ANSWER);
    Instant now = clock.instant();
    ChatMessageAdded added =
        new ChatMessageAdded(
            Ids.derived(id, "added"), now, message.chatId(), id, ChatMessage.ASSISTANT, null);
    Stored<ChatMessage> answer =
        writes.insertOrFind(
            new ChatMessage(
                id,
                message.chatId(),
                ChatMessage.ASSISTANT,
                text,
                null,
                model,
                decided.turns() == 0 ? null : decided.usage(),
                now,
                List.of(OutboxEntry.of(added, codec))));
    ledger.message(answer.document(), answer.inserted() ? tokens : Map.of());
    return new Publication(Collections.CHAT_MESSAGES, id, answer.document().outbox());
  }

  private Publication startTask(
      ChatMessage message,
      Chosen chosen,
      Decision.NewTask newTask,
      LowConfidence.Route route,
      Map<String, Long> tokens) {
    String taskId = Ids.derived(message.id(), TASK);
    Instant now = clock.instant();
    Stored<Task> task =
        writes.insertOrFind(
            Task.created(
                taskId,
                message.chatId(),
                route.agent(),
                newTask.instruction(),
                chosen.model(),
                null,
                route.routing(),
                chosen.chatLimits(),
                now,
                codec));
    RunLedger.Step handoff =
        new RunLedger.Step(
            "handoff/" + taskId,
            RunEvent.HANDOFF,
            taskId,
            null,
            route.agent(),
            RunLedger.data(
                "agent",
                route.agent(),
                "task",
                newTask.instruction(),
                "reactivated",
                false,
                "confidence",
                newTask.confidence(),
                "reason",
                newTask.reason(),
                "fallback",
                route.routing().fallback(),
                "decidedAgent",
                newTask.agent()));
    ledger.append(message.chatId(), List.of(handoff), task.inserted() ? tokens : Map.of());
    return new Publication(
        Collections.TASKS,
        taskId,
        task.document().outbox(),
        ledger.positionHeader(message.chatId()));
  }

  private Publication followUp(
      ChatMessage message, Decision.Reactivate reactivate, Map<String, Long> tokens) {
    SubAgent subAgent = mongo.findById(reactivate.subAgentId(), SubAgent.class);
    if (subAgent == null) {
      throw new IllegalStateException("sub-agent " + reactivate.subAgentId() + " vanished");
    }
    String id = Ids.derived(message.id(), FOLLOW_UP);
    Instant now = clock.instant();
    Appended followUp =
        conversations.appendIfAbsent(
            subAgent,
            new NewMessage(
                id,
                SubAgentMessage.USER,
                reactivate.message(),
                List.of(),
                null,
                List.of(messageAdded(subAgent, id, SubAgentMessage.USER, now))),
            now);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.taskId())),
        new Update()
            .set("routing", new Task.Routing(reactivate.confidence(), reactivate.reason(), false)),
        Task.class);
    Map<String, Object> handoff =
        RunLedger.data(
            "agent",
            subAgent.agent(),
            "task",
            reactivate.message(),
            "reactivated",
            true,
            "confidence",
            reactivate.confidence(),
            "reason",
            reactivate.reason());
    ledger.append(
        subAgent,
        "handoff/" + id,
        RunEvent.HANDOFF,
        handoff,
        followUp.inserted() ? tokens : Map.of());
    ledger.append(subAgent, "run_start/" + id, RunEvent.RUN_START, handoff);
    return wake(subAgent, followUp.message());
  }

  /**
   * Wakes a sub-agent for a message just given to it: sub-agent {@code completed | waiting_for_user
   * → active}, task {@code success | waiting → running}. Only while that message is still the last
   * of its conversation: if anything came after it, the sub-agent already took it up, and a
   * redelivered event must not turn back its state. Its event then goes (back) into the outbox: the
   * loop ignores a sub-agent that is not active, so the event must follow the status change even
   * when the relay already published it before a crash.
   */
  private Publication wake(SubAgent subAgent, SubAgentMessage message) {
    if (!isLast(message)) {
      return new Publication(Collections.SUB_AGENT_MESSAGES, message.id(), message.outbox());
    }
    Instant now = clock.instant();
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id()).and("status").in(WAKEABLE_SUB_AGENT)),
        new Update().set("status", SubAgentStatus.active).set("updatedAt", now),
        SubAgent.class);
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.taskId()).and("status").in(WAKEABLE_TASK)),
        new Update().set("status", TaskStatus.running).set("updatedAt", now),
        Task.class);
    OutboxEntry event = messageAdded(subAgent, message.id(), message.role(), message.createdAt());
    if (message.outbox().stream().noneMatch(e -> e.eventId().equals(event.eventId()))) {
      mongo.updateFirst(
          Query.query(Criteria.where("_id").is(message.id())),
          new Update().push(Outbox.FIELD, event),
          SubAgentMessage.class);
    }
    return new Publication(Collections.SUB_AGENT_MESSAGES, message.id(), List.of(event));
  }

  private boolean isLast(SubAgentMessage message) {
    SubAgentMessage last =
        mongo.findOne(
            Query.query(Criteria.where("subAgentId").is(message.subAgentId()))
                .with(Sort.by(Sort.Direction.DESC, "seq"))
                .limit(1),
            SubAgentMessage.class);
    return last != null && last.id().equals(message.id());
  }

  private OutboxEntry messageAdded(SubAgent subAgent, String messageId, String role, Instant at) {
    return OutboxEntry.of(SubAgentConversations.added(subAgent, messageId, role, at), codec);
  }
}
