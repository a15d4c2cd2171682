package dev.agentrt.orchestrator.chat;

import dev.agentrt.orchestrator.security.CurrentUser;
import dev.agentrt.orchestrator.security.Users;
import dev.agentrt.store.Chat;
import dev.agentrt.store.Plan;
import dev.agentrt.store.Task;
import java.util.List;
import java.util.Optional;
import org.springframework.data.domain.PageRequest;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.stereotype.Component;

/**
 * Which chats, and so which tasks, plans and events, the request's user may see and act on: every
 * check of ownership is here. A chat belongs to the user who created it; a chat stored before there
 * were users (no owner) belongs to {@link Users#LOCAL}. An admin may read every chat but acts only
 * on their own. What a user may not see does not exist for them: callers answer {@code 404}, never
 * {@code 403}, so no one learns that someone else's chat is there.
 */
@Component
public class ChatAccess {

  private final MongoTemplate mongo;

  public ChatAccess(MongoTemplate mongo) {
    this.mongo = mongo;
  }

  /** The request's user, who owns the chats they create. */
  public String user() {
    return CurrentUser.get().name();
  }

  /** The chat, if it exists and the user owns it or is an admin. */
  public Optional<Chat> readable(String chatId) {
    CurrentUser user = CurrentUser.get();
    return find(chatId).filter(chat -> user.admin() || owns(user, chat));
  }

  /**
   * The chat, if it exists and the user owns it: only an owner posts to it or cancels its tasks.
   */
  public Optional<Chat> writable(String chatId) {
    CurrentUser user = CurrentUser.get();
    return find(chatId).filter(chat -> owns(user, chat));
  }

  /**
   * What a chat matches when the request's user may write to it ({@link #writable}): a condition
   * for a write that checks it itself.
   */
  Criteria writableCondition() {
    return ownedBy(user());
  }

  /** The task, if the user may read its chat. */
  Optional<Task> readableTask(String taskId) {
    return task(taskId).filter(task -> readable(task.chatId()).isPresent());
  }

  /** The task, if the user owns its chat. */
  Optional<Task> writableTask(String taskId) {
    return task(taskId).filter(task -> writable(task.chatId()).isPresent());
  }

  /** The plan, if the user may read its chat. */
  Optional<Plan> readablePlan(String planId) {
    return plan(planId).filter(plan -> readable(plan.chatId()).isPresent());
  }

  /** The plan, if the user owns its chat. */
  Optional<Plan> writablePlan(String planId) {
    return plan(planId).filter(plan -> writable(plan.chatId()).isPresent());
  }

  /** One page of the chats the user may read, newest first: their own; an admin's, all. */
  List<Chat> list(int page, int size) {
    CurrentUser user = CurrentUser.get();
    Query query = user.admin() ? new Query() : Query.query(ownedBy(user.name()));
    return mongo.find(
        query.with(PageRequest.of(page, size, Sort.by(Sort.Direction.DESC, "id"))), Chat.class);
  }

  private static Criteria ownedBy(String user) {
    return Users.LOCAL.equals(user)
        ? new Criteria()
            .orOperator(Criteria.where("owner").is(user), Criteria.where("owner").isNull())
        : Criteria.where("owner").is(user);
  }

  /** Who owns the chat: its creator, or the local user for a chat stored before users. */
  public static String ownerOf(Chat chat) {
    return chat.owner() == null ? Users.LOCAL : chat.owner();
  }

  private static boolean owns(CurrentUser user, Chat chat) {
    return ownerOf(chat).equals(user.name());
  }

  private Optional<Chat> find(String chatId) {
    return Optional.ofNullable(mongo.findById(chatId, Chat.class));
  }

  private Optional<Plan> plan(String planId) {
    return Optional.ofNullable(mongo.findById(planId, Plan.class));
  }

  private Optional<Task> task(String taskId) {
    return Optional.ofNullable(mongo.findById(taskId, Task.class));
  }
}
