package dev.agentrt.events;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;

/**
 * Something that happened, published on Kafka. Each permitted type has a JSON Schema under {@code
 * schemas/} and an entry in {@link EventType}; the tests keep the three in agreement.
 */
public sealed interface Event
    permits ChatMessageAdded,
        TaskCreated,
        TaskCompleted,
        TaskFailed,
        TaskWaiting,
        TaskCancelled,
        SubAgentMessageAdded,
        ToolCallRequested {

  /** Unique per event; a republished event keeps its id, so consumers can recognise it. */
  String eventId();

  Instant occurredAt();

  /**
   * The Kafka record key and CloudEvents subject: the id that keeps the events of one conversation
   * in order (chatId, taskId or subAgentId, see the AsyncAPI document).
   */
  @JsonIgnore
  String key();

  @JsonIgnore
  default EventType type() {
    return EventType.of(getClass());
  }
}
