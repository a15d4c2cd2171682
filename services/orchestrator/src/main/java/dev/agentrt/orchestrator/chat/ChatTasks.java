package dev.agentrt.orchestrator.chat;

import dev.agentrt.store.Task;
import java.util.List;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.stereotype.Component;

/** Reads the tasks of a chat. */
@Component
class ChatTasks {

  private final MongoTemplate mongo;

  ChatTasks(MongoTemplate mongo) {
    this.mongo = mongo;
  }

  List<Task> ofChat(String chatId) {
    return mongo.find(
        Query.query(Criteria.where("chatId").is(chatId)).with(Sort.by("createdAt", "_id")),
        Task.class);
  }
}
