package dev.agentrt.orchestrator.chat;

import dev.agentrt.orchestrator.models.Pricing;
import dev.agentrt.store.Chat;
import dev.agentrt.store.Collections;
import dev.agentrt.store.Task;
import dev.agentrt.store.Usage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.stereotype.Component;

/** Reads the tasks of a chat, children included, and the children of a task. */
@Component
class ChatTasks {

  private final MongoTemplate mongo;

  ChatTasks(MongoTemplate mongo) {
    this.mongo = mongo;
  }

  List<Task> ofChat(String chatId) {
    return mongo.find(
        Query.query(Criteria.where("chatId").is(chatId)).with(Sort.by("createdAt", "id")),
        Task.class);
  }

  /** The chat's tasks as the API shows them, each with its children's ids. */
  List<TaskView> viewsOf(String chatId, Pricing pricing) {
    List<Task> tasks = ofChat(chatId);
    Map<String, List<String>> children = new HashMap<>();
    for (Task task : tasks) {
      if (task.delegation() != null) {
        children
            .computeIfAbsent(task.delegation().parentTaskId(), id -> new ArrayList<>())
            .add(task.id());
      }
    }
    return tasks.stream()
        .map(t -> TaskView.of(t, pricing, children.getOrDefault(t.id(), List.of())))
        .toList();
  }

  /**
   * The usage of each chat: the chat's own sums (its decisions, and the answers and turns of tasks
   * that do not keep their usage apart) plus those of its tasks that do ({@link Task#usageApart}),
   * read with one query for all the chats.
   */
  Map<String, Usage> usageOf(Collection<Chat> chats) {
    Map<String, Usage> usage = new HashMap<>();
    chats.forEach(chat -> usage.put(chat.id(), Usage.of(chat.usage())));
    if (usage.isEmpty()) {
      return usage;
    }
    Query apart =
        Query.query(Criteria.where("chatId").in(usage.keySet()).and(Task.USAGE_APART).is(true));
    apart.fields().include("chatId", "usage");
    for (Document task : mongo.find(apart, Document.class, Collections.TASKS)) {
      Document sums = task.get("usage", Document.class);
      if (sums != null) {
        usage.merge(
            task.getString("chatId"), mongo.getConverter().read(Usage.class, sums), Usage::plus);
      }
    }
    return usage;
  }

  /** The ids of the task's children, oldest first. */
  List<String> childrenOf(String taskId) {
    return mongo
        .find(
            Query.query(Criteria.where("delegation.parentTaskId").is(taskId))
                .with(Sort.by("createdAt", "id")),
            Task.class)
        .stream()
        .map(Task::id)
        .toList();
  }
}
