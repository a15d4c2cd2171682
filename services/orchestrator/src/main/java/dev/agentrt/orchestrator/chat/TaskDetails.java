package dev.agentrt.orchestrator.chat;

import dev.agentrt.orchestrator.models.Pricing;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.Task;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.Usage;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.stereotype.Component;

/** One task with what its sub-agent saw and did: its conversation and its tool calls. */
@Component
class TaskDetails {

  private final MongoTemplate mongo;
  private final SubAgentConversations conversations;
  private final Pricing pricing;
  private final ChatTasks tasks;

  TaskDetails(
      MongoTemplate mongo, SubAgentConversations conversations, Pricing pricing, ChatTasks tasks) {
    this.mongo = mongo;
    this.conversations = conversations;
    this.pricing = pricing;
    this.tasks = tasks;
  }

  /**
   * @param subAgent absent until agent-init has started it
   * @param messages the sub-agent's conversation in order, in the chat-completions shape
   * @param toolCalls the tool calls it asked for, oldest first
   */
  record View(
      TaskView task,
      @Nullable SubAgentView subAgent,
      List<MessageView> messages,
      List<ToolCallView> toolCalls) {}

  /**
   * @param usage its turns: the sum of its assistant messages' usage
   */
  record SubAgentView(
      String id,
      String agent,
      String status,
      long messageCount,
      UsageView usage,
      Instant createdAt,
      Instant updatedAt) {}

  /**
   * @param model on an assistant message, the model asked for its turn (absent: the default)
   * @param usage on an assistant message, the tokens of its turn
   */
  record MessageView(
      String role,
      @Nullable String content,
      @Nullable List<ToolCallRequest> toolCalls,
      @Nullable String toolCallId,
      @Nullable String model,
      UsageView.@Nullable Turn usage) {}

  /** A tool call inside an assistant message: the model's id, the tool, its arguments (JSON). */
  record ToolCallRequest(String id, String name, String arguments) {}

  /**
   * @param id the tool call's document id
   * @param modelCallId the model's id for the call, as in the messages' {@code toolCalls[].id} and
   *     {@code toolCallId}
   */
  record ToolCallView(
      String id,
      String modelCallId,
      String name,
      String arguments,
      String status,
      @Nullable String result,
      @Nullable String error,
      @Nullable Long latencyMs) {}

  Optional<View> of(String taskId) {
    Task task = mongo.findById(taskId, Task.class);
    if (task == null) {
      return Optional.empty();
    }
    TaskView view = TaskView.of(task, pricing, tasks.childrenOf(taskId));
    SubAgent subAgent =
        task.subAgentId() == null ? null : mongo.findById(task.subAgentId(), SubAgent.class);
    if (subAgent == null) {
      return Optional.of(new View(view, null, List.of(), List.of()));
    }
    List<SubAgentMessage> conversation = conversations.messages(subAgent.id());
    List<MessageView> messages = conversation.stream().map(this::message).toList();
    List<ToolCallView> toolCalls =
        mongo
            .find(
                Query.query(Criteria.where("subAgentId").is(subAgent.id()))
                    .with(Sort.by("createdAt", "id")),
                ToolCall.class)
            .stream()
            .map(TaskDetails::toolCall)
            .toList();
    return Optional.of(
        new View(
            view,
            new SubAgentView(
                subAgent.id(),
                subAgent.agent(),
                subAgent.status().name(),
                subAgent.messageCount(),
                UsageView.of(Usage.summed(conversation), pricing),
                subAgent.createdAt(),
                subAgent.updatedAt()),
            messages,
            toolCalls));
  }

  private MessageView message(SubAgentMessage m) {
    List<RequestedToolCall> calls = m.toolCalls() == null ? List.of() : m.toolCalls();
    return new MessageView(
        m.role(),
        m.content(),
        calls.isEmpty()
            ? null
            : calls.stream()
                .map(c -> new ToolCallRequest(c.id(), c.name(), c.arguments()))
                .toList(),
        m.toolCallId(),
        m.model(),
        UsageView.Turn.of(m.model(), m.usage(), pricing));
  }

  private static ToolCallView toolCall(ToolCall c) {
    return new ToolCallView(
        c.id(),
        c.modelCallId(),
        c.name(),
        c.arguments(),
        c.status().name(),
        c.result(),
        c.error(),
        c.latencyMs());
  }
}
