package dev.agentrt.orchestrator.chat;

import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
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
import java.time.ZoneOffset;
import java.util.List;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

/**
 * Steers a task's sub-agent: the person's text becomes a {@code user} message of its conversation,
 * announced so the loop's next turn sees it (while tool calls run, it waits for their results). A
 * sub-agent that completed gets it as a follow-up: it and its task run again. The message is stored
 * before the sub-agent moves, so a sub-agent that completes meanwhile is woken all the same.
 */
@Component
class Guidance {

  /** What became of the guidance. */
  sealed interface Result {
    record Sent(SubAgentMessage message) implements Result {}

    /** The sub-agent cannot take it now; {@code reason} says why. */
    record Refused(String reason) implements Result {}
  }

  private final MongoTemplate mongo;
  private final SubAgentConversations conversations;
  private final Outbox outbox;
  private final EventCodec codec;
  private final RunLedger ledger;
  private final Clock clock = Clock.tickMillis(ZoneOffset.UTC); // as precise as MongoDB

  Guidance(
      MongoTemplate mongo,
      SubAgentConversations conversations,
      Outbox outbox,
      EventCodec codec,
      RunLedger ledger) {
    this.mongo = mongo;
    this.conversations = conversations;
    this.outbox = outbox;
    this.codec = codec;
    this.ledger = ledger;
  }

  Result guide(Task task, String text, String by) {
    SubAgent subAgent =
        task.subAgentId() == null ? null : mongo.findById(task.subAgentId(), SubAgent.class);
    if (subAgent == null) {
      return new Result.Refused("task " + task.id() + " has not started yet");
    }
    switch (subAgent.status()) {
      case waiting_for_user -> {
        return new Result.Refused(
            "task " + task.id() + " waits for an answer to its question: send a clarification");
      }
      case failed, cancelled -> {
        return new Result.Refused(
            "task " + task.id() + " has ended (" + subAgent.status() + "); it cannot be guided");
      }
      case active, completed -> {
        // guided below
      }
    }
    Instant now = clock.instant();
    String id = Ids.fresh();
    SubAgentMessage message =
        conversations.append(
            subAgent,
            new NewMessage(
                id,
                SubAgentMessage.USER,
                text,
                List.of(),
                null,
                List.of(
                    OutboxEntry.of(
                        SubAgentConversations.added(subAgent, id, SubAgentMessage.USER, now),
                        codec))),
            now);
    boolean followUp =
        mongo
                .updateFirst(
                    Query.query(
                        Criteria.where("_id")
                            .is(subAgent.id())
                            .and("status")
                            .is(SubAgentStatus.completed)),
                    new Update().set("status", SubAgentStatus.active).set("updatedAt", now),
                    SubAgent.class)
                .getModifiedCount()
            > 0;
    if (followUp) {
      mongo.updateFirst(
          Query.query(Criteria.where("_id").is(task.id()).and("status").is(TaskStatus.success)),
          new Update().set("status", TaskStatus.running).set("updatedAt", now),
          Task.class);
    }
    ledger.append(
        subAgent,
        "guidance/" + id,
        RunEvent.GUIDANCE,
        RunLedger.data(
            "messageId", id, "by", by, "followUp", followUp, "text", RunLedger.excerpt(text)));
    outbox.publishOrLeaveToRelay(Collections.SUB_AGENT_MESSAGES, message.id(), message.outbox());
    return new Result.Sent(message);
  }
}
