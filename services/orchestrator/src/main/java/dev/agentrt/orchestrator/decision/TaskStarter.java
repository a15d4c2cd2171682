package dev.agentrt.orchestrator.decision;

import dev.agentrt.events.ChatMessageAdded;
import dev.agentrt.events.EventCodec;
import dev.agentrt.events.TaskCreated;
import dev.agentrt.platform.outbox.Outbox;
import dev.agentrt.platform.outbox.OutboxEntry;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Ids;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.stereotype.Component;

/**
 * Puts an agent on a task for a person's message. For now every message becomes a task for the
 * default agent; the model's decision (answer, new task, or follow-up) replaces this choice in the
 * pipeline issue. The task's id derives from the message, so a redelivered event finds the task it
 * already made and only re-publishes what its outbox still holds.
 */
@Component
class TaskStarter {

  private final MongoTemplate mongo;
  private final Outbox outbox;
  private final EventCodec codec;
  private final String defaultAgent;
  private final Clock clock = Clock.systemUTC();

  TaskStarter(
      MongoTemplate mongo,
      Outbox outbox,
      EventCodec codec,
      @Value("${agentrt.orchestrator.default-agent}") String defaultAgent) {
    this.mongo = mongo;
    this.outbox = outbox;
    this.codec = codec;
    this.defaultAgent = defaultAgent;
  }

  void startFor(ChatMessageAdded added) {
    ChatMessage message = mongo.findById(added.messageId(), ChatMessage.class);
    if (message == null) {
      throw new IllegalStateException("chat message " + added.messageId() + " is not stored");
    }
    String taskId = Ids.derived(message.id(), "task");
    Instant now = clock.instant();
    TaskCreated created =
        new TaskCreated(
            Ids.derived(taskId, "created"),
            now,
            taskId,
            message.chatId(),
            defaultAgent,
            message.content());
    Task task =
        new Task(
            taskId,
            message.chatId(),
            Task.TYPE_AGENT,
            defaultAgent,
            message.content(),
            TaskStatus.created,
            null,
            null,
            null,
            now,
            now,
            List.of(OutboxEntry.of(created, codec)));
    try {
      mongo.insert(task);
    } catch (DuplicateKeyException alreadyHandled) {
      task = mongo.findById(taskId, Task.class);
    }
    outbox.publish(Collections.TASKS, taskId, task.outbox());
  }
}
