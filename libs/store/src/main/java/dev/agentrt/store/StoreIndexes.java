package dev.agentrt.store;

import dev.agentrt.platform.outbox.Outbox;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.index.Index;

/** Creates the indexes the queries and the invariants rely on; idempotent, run at start-up. */
public class StoreIndexes implements InitializingBean {

  private final MongoTemplate mongo;

  public StoreIndexes(MongoTemplate mongo) {
    this.mongo = mongo;
  }

  @Override
  public void afterPropertiesSet() {
    // A chat's messages and tasks are read in creation order.
    for (String collection : new String[] {Collections.CHAT_MESSAGES, Collections.TASKS}) {
      mongo
          .indexOps(collection)
          .createIndex(
              new Index()
                  .on("chatId", Sort.Direction.ASC)
                  .on("createdAt", Sort.Direction.ASC)
                  .on("_id", Sort.Direction.ASC));
    }
    mongo
        .indexOps(Collections.SUB_AGENTS)
        .createIndex(new Index().on("taskId", Sort.Direction.ASC).unique());
    mongo
        .indexOps(Collections.SUB_AGENT_MESSAGES)
        .createIndex(
            new Index()
                .on("subAgentId", Sort.Direction.ASC)
                .on("seq", Sort.Direction.ASC)
                .unique());
    mongo
        .indexOps(Collections.SUB_AGENT_TOOL_CALLS)
        .createIndex(new Index().on("subAgentId", Sort.Direction.ASC));
    // The call a person's chat message decided: asked of every message the orchestrator handles.
    mongo
        .indexOps(Collections.SUB_AGENT_TOOL_CALLS)
        .createIndex(new Index().on(ToolCall.DECISION + ".messageId", Sort.Direction.ASC).sparse());
    // A chat's plans; the plan a node's task belongs to; running plans nothing moved lately.
    mongo
        .indexOps(Collections.PLANS)
        .createIndex(
            new Index()
                .on("chatId", Sort.Direction.ASC)
                .on("createdAt", Sort.Direction.ASC)
                .on("_id", Sort.Direction.ASC));
    mongo
        .indexOps(Collections.PLANS)
        .createIndex(new Index().on("nodes.taskId", Sort.Direction.ASC));
    mongo
        .indexOps(Collections.PLANS)
        .createIndex(
            new Index().on("status", Sort.Direction.ASC).on("updatedAt", Sort.Direction.ASC));
    // The sweepers: runs past their deadline, turns and tool calls whose lease expired, tool calls
    // nobody claimed, failures not finished, the person's messages awaiting a decision, tasks whose
    // event was lost. Each finds the few documents in that state among all ever stored.
    mongo
        .indexOps(Collections.CHAT_MESSAGES)
        .createIndex(new Index().on(ChatMessage.AWAITING_DECISION, Sort.Direction.ASC).sparse());
    mongo
        .indexOps(Collections.SUB_AGENTS)
        .createIndex(
            new Index().on("status", Sort.Direction.ASC).on("deadline", Sort.Direction.ASC));
    mongo
        .indexOps(Collections.SUB_AGENTS)
        .createIndex(new Index().on("turn.leaseUntil", Sort.Direction.ASC).sparse());
    mongo
        .indexOps(Collections.SUB_AGENTS)
        .createIndex(new Index().on(SubAgent.UNLOOKED_SINCE, Sort.Direction.ASC).sparse());
    mongo
        .indexOps(Collections.SUB_AGENTS)
        .createIndex(
            new Index().on(SubAgent.UNFINISHED_FAILURE + ".at", Sort.Direction.ASC).sparse());
    mongo
        .indexOps(Collections.SUB_AGENT_TOOL_CALLS)
        .createIndex(
            new Index().on("status", Sort.Direction.ASC).on("createdAt", Sort.Direction.ASC));
    mongo
        .indexOps(Collections.SUB_AGENT_TOOL_CALLS)
        .createIndex(new Index().on(ToolCall.LEASE + ".leaseUntil", Sort.Direction.ASC).sparse());
    // Tasks whose event was lost (a start, a question, an answer), by status, oldest first.
    mongo
        .indexOps(Collections.TASKS)
        .createIndex(
            new Index().on("status", Sort.Direction.ASC).on("updatedAt", Sort.Direction.ASC));
    // A task's children (message_agent), for its tree and for cancelling its subtree.
    mongo
        .indexOps(Collections.TASKS)
        .createIndex(new Index().on("delegation.parentTaskId", Sort.Direction.ASC).sparse());
    mongo
        .indexOps(Collections.RUN_EVENTS)
        .createIndex(
            new Index().on("chatId", Sort.Direction.ASC).on("seq", Sort.Direction.ASC).unique());
    for (String collection :
        new String[] {
          Collections.CHAT_MESSAGES,
          Collections.TASKS,
          Collections.SUB_AGENT_MESSAGES,
          Collections.SUB_AGENT_TOOL_CALLS
        }) {
      mongo
          .indexOps(collection)
          .createIndex(new Index().on(Outbox.FIELD + ".occurredAt", Sort.Direction.ASC));
    }
  }
}
