package dev.agentrt.agentinit;

import dev.agentrt.events.TaskCreated;
import dev.agentrt.store.Ids;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import java.time.Clock;
import java.time.Instant;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

/**
 * Creates the sub-agent of a task and links the task to it. Both steps are idempotent: the
 * sub-agent's id derives from the task, and the task moves {@code created → running} only once.
 */
@Component
class SubAgentStarter {

  private final MongoTemplate mongo;
  private final Clock clock = Clock.systemUTC();

  SubAgentStarter(MongoTemplate mongo) {
    this.mongo = mongo;
  }

  void start(TaskCreated created) {
    String subAgentId = Ids.derived(created.taskId(), "sub-agent");
    Instant now = clock.instant();
    try {
      mongo.insert(
          new SubAgent(
              subAgentId,
              created.taskId(),
              created.chatId(),
              created.agent(),
              SubAgentStatus.active,
              0,
              null,
              now,
              now));
    } catch (DuplicateKeyException alreadyStarted) {
      // redelivered: the sub-agent exists; make sure the task points at it
    }
    mongo.updateFirst(
        Query.query(
            Criteria.where("_id").is(created.taskId()).and("status").is(TaskStatus.created)),
        new Update()
            .set("subAgentId", subAgentId)
            .set("status", TaskStatus.running)
            .set("updatedAt", now),
        Task.class);
  }
}
