package dev.agentrt.events;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** One event of every type, with optional fields both set and left out. */
final class SampleEvents {

  private static final Instant NOW = Instant.parse("2026-11-22T10:15:30.123Z");

  static List<Event> all() {
    return List.of(
        new ChatMessageAdded(id(), NOW, "chat-1", "msg-1", "user", null),
        new ChatMessageAdded(id(), NOW, "chat-1", "msg-2", "assistant", "task-1"),
        new TaskCreated(id(), NOW, "task-1", "chat-1", "researcher", "Research Kafka"),
        new TaskCreated(
            id(),
            NOW,
            "task-2",
            "chat-1",
            "researcher",
            "Research Kafka",
            null,
            null,
            null,
            new TaskCreated.Limits(4, 20_000L, null),
            null),
        new TaskCreated(
            id(),
            NOW,
            "task-3",
            "chat-1",
            "researcher",
            "Research Kafka",
            null,
            null,
            null,
            new TaskCreated.Limits(null, null, null),
            null),
        new TaskCreated(
            id(),
            NOW,
            "task-4",
            "chat-1",
            "researcher",
            "Research Kafka",
            null,
            null,
            null,
            null,
            new TaskCreated.Start("gpt-4.1")),
        new TaskCreated(
            id(),
            NOW,
            "task-5",
            "chat-1",
            "researcher",
            "Research Kafka",
            null,
            null,
            null,
            null,
            new TaskCreated.Start(null)),
        new TaskCompleted(id(), NOW, "task-1", "chat-1", "sub-1", "Kafka is a log."),
        new TaskFailed(id(), NOW, "task-1", "chat-1", "sub-1", "model_error", "HTTP 500 x5"),
        new TaskFailed(id(), NOW, "task-2", "chat-1", null, "unknown_agent", "no agent 'x'"),
        new TaskWaiting(id(), NOW, "task-1", "chat-1", "sub-1", "What should I research?"),
        new TaskCancelled(id(), NOW, "task-1", "chat-1", "sub-1", "2 model turns, 2 tool calls"),
        new TaskCancelled(id(), NOW, "task-3", "chat-1", null, "nothing yet"),
        new SubAgentMessageAdded(id(), NOW, "sub-1", "task-1", "chat-1", "sam-1", "tool"),
        new SubAgentMessageAdded(
            id(),
            NOW,
            "sub-1",
            "task-1",
            "chat-1",
            "sam-2",
            "tool",
            new SubAgentMessageAdded.Carried("{\"hits\":3}", "call_1")),
        new SubAgentMessageAdded(
            id(),
            NOW,
            "sub-1",
            "task-1",
            "chat-1",
            "sam-3",
            "user",
            new SubAgentMessageAdded.Carried("go on", null)),
        new SubAgentMessageAdded(
            id(),
            NOW,
            "sub-1",
            "task-1",
            "chat-1",
            "sam-4",
            "user",
            new SubAgentMessageAdded.Carried("Research Kafka", null),
            new SubAgentMessageAdded.Start(
                "researcher", "sam-0", "You research.", null, null, null, null, null)),
        new SubAgentMessageAdded(
            id(),
            NOW,
            "sub-2",
            "task-2",
            "chat-1",
            "sam-5",
            "user",
            new SubAgentMessageAdded.Carried("Compare them", null),
            new SubAgentMessageAdded.Start(
                "analyst",
                "sam-6",
                "You analyse.",
                "gpt-4o-mini",
                new TaskCreated.Limits(4, null, 600L),
                "task-1",
                NOW.plusSeconds(60),
                true)),
        new ToolCallRequested(id(), NOW, "call-1", "sub-1", "task-1", "chat-1", "search_docs"),
        new ToolCallRequested(
            id(),
            NOW,
            "call-2",
            "sub-1",
            "task-1",
            "chat-1",
            "search_docs",
            new ToolCallRequested.Call(
                "researcher", "answer-1", "call_1", "{\"query\":\"kafka\"}", 3L)),
        new ToolCallRequested(
            id(),
            NOW,
            "call-3",
            "sub-1",
            "task-1",
            "chat-1",
            "read_doc",
            new ToolCallRequested.Call(null, null, "call_2", "{}", null)));
  }

  private static String id() {
    return UUID.randomUUID().toString();
  }

  private SampleEvents() {}
}
