package dev.agentrt.orchestrator.testing;

import dev.agentrt.events.EventCodec;
import dev.agentrt.platform.BulkWrites;
import dev.agentrt.store.Chat;
import dev.agentrt.store.ChatMessage;
import dev.agentrt.store.Ids;
import dev.agentrt.store.Plans;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.RunLedger;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentConversations.NewMessage;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import dev.agentrt.store.TaskStatus;
import dev.agentrt.store.ToolCall;
import dev.agentrt.store.ToolCallStatus;
import dev.agentrt.store.TurnInput;
import dev.agentrt.store.TurnUsage;
import dev.agentrt.store.UsageCounter;
import dev.agentrt.testing.UnreachableBroker;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Stored state the tests start from: chats' messages, tasks, sub-agents and their conversations,
 * written as the services write them. Times advance a millisecond per document, so order is fixed.
 */
public final class Stored {

  public static final String CHAT = "chat-1";

  private final MongoTemplate mongo;
  private final SubAgentConversations conversations;
  private Instant now = Instant.parse("2026-11-22T12:00:00Z");

  /** Plans whose tasks' events stay in their outboxes, for the test to read. */
  public static Plans plans(MongoTemplate mongo) {
    return new Plans(
        mongo,
        new BulkWrites(mongo),
        UnreachableBroker.outbox(mongo),
        new EventCodec(),
        new RunLedger(mongo));
  }

  public Stored(MongoTemplate mongo) {
    this.mongo = mongo;
    this.conversations = new SubAgentConversations(mongo);
  }

  private Instant tick() {
    now = now.plusMillis(1);
    return now;
  }

  public ChatMessage userMessage(String chatId, String content) {
    return userMessage(chatId, content, null);
  }

  /** The person's message, with the model they chose for it. */
  public ChatMessage userMessage(String chatId, String content, @Nullable String model) {
    return mongo.insert(
        ChatMessage.fromPerson(Ids.fresh(), chatId, content, model, null, tick(), List.of()));
  }

  /** A chat, with the model chosen for it. */
  public Chat chat(String chatId, @Nullable String model) {
    return mongo.insert(new Chat(chatId, "test", model, tick(), null, null, null));
  }

  public ChatMessage assistantMessage(String chatId, String content) {
    return mongo.insert(
        new ChatMessage(
            Ids.fresh(), chatId, ChatMessage.ASSISTANT, content, null, tick(), List.of()));
  }

  /** A task whose sub-agent agent-init has started, as agent-init ids it. */
  public Started startedTask(
      String chatId,
      String instruction,
      TaskStatus taskStatus,
      SubAgentStatus subAgentStatus,
      @Nullable String result) {
    String taskId = Ids.fresh();
    String subAgentId = Ids.derived(taskId, "sub-agent");
    Instant at = tick();
    Task task =
        mongo.insert(
            new Task(
                taskId,
                chatId,
                Task.TYPE_AGENT,
                "researcher",
                instruction,
                taskStatus,
                subAgentId,
                result,
                null,
                at,
                at,
                List.of()));
    SubAgent subAgent =
        mongo.insert(
            new SubAgent(
                subAgentId, taskId, chatId, "researcher", subAgentStatus, 0, null, at, at));
    return new Started(task, subAgent);
  }

  public record Started(Task task, SubAgent subAgent) {}

  public SubAgentMessage append(
      SubAgent subAgent,
      String role,
      @Nullable String content,
      List<RequestedToolCall> toolCalls,
      @Nullable String toolCallId) {
    return conversations.append(
        subAgent,
        new NewMessage(Ids.fresh(), role, content, toolCalls, toolCallId, List.of()),
        tick());
  }

  /**
   * The model's answer in a sub-agent's conversation with its turn's tokens, counted as agent-loop
   * counts them: on its task and its chat (the sub-agent's are its answers' sums).
   */
  public SubAgentMessage modelAnswer(
      SubAgent subAgent, String content, @Nullable String model, TurnUsage tokens) {
    SubAgentMessage answer =
        conversations.append(
            subAgent,
            new NewMessage(
                Ids.fresh(),
                SubAgentMessage.ASSISTANT,
                content,
                List.of(),
                null,
                model,
                tokens,
                null,
                List.of()),
            tick());
    UsageCounter usage = new UsageCounter(mongo);
    usage.add(Task.class, subAgent.taskId(), model, tokens, 1);
    usage.add(Chat.class, subAgent.chatId(), model, tokens, 1);
    return answer;
  }

  /** The model's answer of a turn as agent-loop stores it: with what the turn was given. */
  public SubAgentMessage turnAnswer(
      SubAgent subAgent,
      @Nullable String content,
      List<RequestedToolCall> toolCalls,
      @Nullable String model,
      TurnInput input) {
    return conversations.append(
        subAgent,
        new NewMessage(
            Ids.fresh(),
            SubAgentMessage.ASSISTANT,
            content,
            toolCalls,
            null,
            model,
            TurnUsage.NONE,
            input,
            List.of()),
        tick());
  }

  /** system, user (the instruction), assistant (the final answer): a finished run. */
  public void finishedConversation(SubAgent subAgent, String instruction, String answer) {
    append(subAgent, SubAgentMessage.SYSTEM, "You are a careful researcher.", List.of(), null);
    append(subAgent, SubAgentMessage.USER, instruction, List.of(), null);
    append(subAgent, SubAgentMessage.ASSISTANT, answer, List.of(), null);
  }

  /** system, user, assistant asking the person through {@code ask_user} with this call id. */
  public void askingConversation(SubAgent subAgent, String askUserCallId, String question) {
    append(subAgent, SubAgentMessage.SYSTEM, "You are a careful researcher.", List.of(), null);
    append(subAgent, SubAgentMessage.USER, "Research it", List.of(), null);
    append(
        subAgent,
        SubAgentMessage.ASSISTANT,
        null,
        List.of(
            new RequestedToolCall(
                askUserCallId, "ask_user", "{\"question\":\"" + question + "\"}")),
        null);
  }

  public ToolCall toolCall(SubAgent subAgent, String modelCallId, String name, String arguments) {
    Instant at = tick();
    return mongo.insert(
        new ToolCall(
            Ids.derived(subAgent.id(), modelCallId),
            subAgent.id(),
            subAgent.taskId(),
            subAgent.chatId(),
            subAgent.agent(),
            modelCallId,
            name,
            arguments,
            ToolCallStatus.success,
            "{\"results\":[]}",
            null,
            12L,
            null,
            at,
            at,
            List.of()));
  }
}
