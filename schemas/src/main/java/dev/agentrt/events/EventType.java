package dev.agentrt.events;

import java.net.URI;
import java.util.Arrays;
import java.util.Optional;

/** Every event type: its Java record, its topic, its JSON Schema and its CloudEvents type. */
public enum EventType {
  CHAT_MESSAGE_ADDED(ChatMessageAdded.class, Topics.CHAT_MESSAGES, "chat-message-added"),
  TASK_CREATED(TaskCreated.class, Topics.TASKS, "task-created"),
  TASK_COMPLETED(TaskCompleted.class, Topics.TASKS, "task-completed"),
  TASK_FAILED(TaskFailed.class, Topics.TASKS, "task-failed"),
  TASK_WAITING(TaskWaiting.class, Topics.TASKS, "task-waiting"),
  TASK_CANCELLED(TaskCancelled.class, Topics.TASKS, "task-cancelled"),
  SUB_AGENT_MESSAGE_ADDED(
      SubAgentMessageAdded.class, Topics.SUB_AGENT_MESSAGES, "sub-agent-message-added"),
  TOOL_CALL_REQUESTED(ToolCallRequested.class, Topics.TOOL_CALLS, "tool-call-requested");

  private static final String CE_TYPE_PREFIX = "dev.agentrt.";

  private final Class<? extends Event> javaType;
  private final String topic;
  private final String schemaName;

  EventType(Class<? extends Event> javaType, String topic, String schemaName) {
    this.javaType = javaType;
    this.topic = topic;
    this.schemaName = schemaName;
  }

  public Class<? extends Event> javaType() {
    return javaType;
  }

  public String topic() {
    return topic;
  }

  /** The CloudEvents {@code type} attribute, e.g. {@code dev.agentrt.TaskCreated}. */
  public String ceType() {
    return CE_TYPE_PREFIX + javaType.getSimpleName();
  }

  /** The CloudEvents {@code dataschema} attribute: the {@code $id} of the payload's schema. */
  public URI dataSchema() {
    return URI.create("urn:agentrt:schema:" + schemaName);
  }

  /** Classpath location of the payload's JSON Schema. */
  public String schemaResource() {
    return "/schemas/" + schemaName + ".json";
  }

  public static EventType of(Class<? extends Event> javaType) {
    return Arrays.stream(values())
        .filter(t -> t.javaType == javaType)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("not an event type: " + javaType));
  }

  public static Optional<EventType> ofCeType(String ceType) {
    return Arrays.stream(values()).filter(t -> t.ceType().equals(ceType)).findFirst();
  }
}
