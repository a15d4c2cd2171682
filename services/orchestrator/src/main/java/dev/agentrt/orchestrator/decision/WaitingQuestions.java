package dev.agentrt.orchestrator.decision;

import dev.agentrt.agents.AskUser;
import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.stereotype.Component;

/**
 * The question of a chat that waits for the person's answer: of its tasks {@code waiting}, the
 * latest whose sub-agent's last assistant message left an {@code ask_user} call unanswered (a task
 * waiting for an approval asks none).
 */
@Component
public class WaitingQuestions {

  /**
   * The sub-agent that asked, the id the model gave its {@code ask_user} call, and the options it
   * offers (empty: an open question).
   */
  public record WaitingQuestion(SubAgent subAgent, String askUserCallId, List<String> options) {}

  /** The newest update first. */
  private static final Comparator<Task> LATEST_FIRST =
      Comparator.comparing(Task::updatedAt).thenComparing(Task::id).reversed();

  private final MongoTemplate mongo;
  private final SubAgentConversations conversations;

  public WaitingQuestions(MongoTemplate mongo, SubAgentConversations conversations) {
    this.mongo = mongo;
    this.conversations = conversations;
  }

  public Optional<WaitingQuestion> latest(String chatId) {
    // Narrowed by the query; which ones wait, and in what order, latestAmong says.
    return latestAmong(
        mongo.find(
            Query.query(
                Criteria.where("chatId")
                    .is(chatId)
                    .and("status")
                    .is(TaskStatus.waiting)
                    .and("subAgentId")
                    .ne(null)),
            Task.class));
  }

  /** {@link #latest}, among the chat's tasks as the caller read them (any of them, any order). */
  Optional<WaitingQuestion> latestAmong(List<Task> chatTasks) {
    List<Task> waiting =
        chatTasks.stream()
            .filter(t -> t.status() == TaskStatus.waiting && t.subAgentId() != null)
            .sorted(LATEST_FIRST)
            .toList();
    for (Task task : waiting) {
      SubAgent subAgent = mongo.findById(task.subAgentId(), SubAgent.class);
      if (subAgent == null) {
        continue;
      }
      Optional<RequestedToolCall> call = unansweredAskUser(conversations.messages(subAgent.id()));
      if (call.isPresent()) {
        return Optional.of(
            new WaitingQuestion(
                subAgent, call.get().id(), AskUser.options(call.get().arguments())));
      }
    }
    return Optional.empty();
  }

  /** The {@code ask_user} call that has no tool message yet, if any. */
  static Optional<RequestedToolCall> unansweredAskUser(List<SubAgentMessage> conversation) {
    Set<String> answered = new HashSet<>();
    for (SubAgentMessage m : conversation.reversed()) {
      if (SubAgentMessage.TOOL.equals(m.role())) {
        answered.add(m.toolCallId());
      } else if (SubAgentMessage.ASSISTANT.equals(m.role())) {
        return m.toolCalls().stream()
            .filter(call -> ToolCatalog.ASK_USER.equals(call.name()))
            .filter(call -> !answered.contains(call.id()))
            .findFirst();
      }
    }
    return Optional.empty();
  }
}
