package dev.agentrt.agentinit;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.events.TaskFailed;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.Chat;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.RunEvent;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

/**
 * Starts the sub-agent of a new task: creates it, links the task to it, and writes its first two
 * messages — the agent's system prompt and the task's instruction as the user's message, whose
 * event wakes the agent loop. Every step is idempotent (ids derive from the task; the task moves
 * {@code created → running} once), so a redelivered event completes what a crash interrupted.
 */
@Component
class SubAgentStarter {

  private final MongoTemplate mongo;
  private final SubAgentConversations conversations;
  private final AgentCatalog agents;
  private final Outbox outbox;
  private final EventCodec codec;
  private final RunLedger ledger;
  private final Clock clock = Clock.systemUTC();

  SubAgentStarter(
      MongoTemplate mongo,
      SubAgentConversations conversations,
      AgentCatalog agents,
      Outbox outbox,
      EventCodec codec,
      RunLedger ledger) {
    this.mongo = mongo;
    this.conversations = conversations;
    this.agents = agents;
    this.outbox = outbox;
    this.codec = codec;
    this.ledger = ledger;
  }

  void start(TaskCreated created) {
    Instant now = clock.instant();
    Optional<AgentDefinition> agent = agents.find(created.agent());
    if (agent.isEmpty()) {
      failUnknownAgent(created, now);
      return;
    }
    SubAgent subAgent = subAgentOf(created, now);
    mongo.updateFirst(
        Query.query(
            Criteria.where("_id").is(created.taskId()).and("status").is(TaskStatus.created)),
        new Update()
            .set("subAgentId", subAgent.id())
            .set("status", TaskStatus.running)
            .set("updatedAt", now),
        Task.class);
    conversations.append(
        subAgent,
        new NewMessage(
            Ids.derived(created.taskId(), "system-prompt"),
            SubAgentMessage.SYSTEM,
            AgentCatalog.systemPrompt(agent.get()),
            List.of(),
            null,
            List.of()),
        now);
    String instructionId = Ids.derived(created.taskId(), "instruction");
    SubAgentMessage instruction =
        conversations.append(
            subAgent,
            new NewMessage(
                instructionId,
                SubAgentMessage.USER,
                created.instruction(),
                List.of(),
                null,
                List.of(
                    OutboxEntry.of(
                        SubAgentConversations.added(
                            subAgent, instructionId, SubAgentMessage.USER, now),
                        codec))),
            now);
    ledger.append(
        subAgent,
        "run_start/" + subAgent.id(),
        RunEvent.RUN_START,
        RunLedger.data("agent", subAgent.agent(), "task", created.instruction()));
    outbox.publish(Collections.SUB_AGENT_MESSAGES, instruction.id(), instruction.outbox());
  }

  /**
   * The task's sub-agent, created with what was chosen for the task and its chat (the model, the
   * limits), so that its turns need not read them.
   */
  private SubAgent subAgentOf(TaskCreated created, Instant now) {
    Task task = mongo.findById(created.taskId(), Task.class);
    Query limits = Query.query(Criteria.where("_id").is(created.chatId()));
    limits.fields().include("limits");
    Chat chat = mongo.findOne(limits, Chat.class);
    SubAgent fresh =
        new SubAgent(
            Ids.derived(created.taskId(), "sub-agent"),
            created.taskId(),
            created.chatId(),
            created.agent(),
            SubAgentStatus.active,
            0,
            null,
            null,
            now,
            now,
            null,
            new SubAgent.Settings(
                task == null ? null : task.model(), chat == null ? null : chat.limits()));
    try {
      return mongo.insert(fresh);
    } catch (DuplicateKeyException alreadyStarted) {
      return mongo.findById(fresh.id(), SubAgent.class);
    }
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
                Ids.derived(created.taskId(), "unknown-agent"),
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
