package dev.agentrt.store;

import org.jspecify.annotations.Nullable;
import org.springframework.data.annotation.PersistenceCreator;

/**
 * A tool call as the model asked for it, inside an assistant message: the chat-completions shape.
 * {@code id} is the model's id for the call; {@code arguments} is a JSON object as text.
 *
 * @param awaitsApproval true when the call was gated as the answer was stored: it waits for a
 *     person's decision instead of going to tool-runner; absent otherwise
 */
public record RequestedToolCall(
    String id, String name, String arguments, @Nullable Boolean awaitsApproval) {

  @PersistenceCreator
  public RequestedToolCall {}

  /** A call that goes to its tool at once. */
  public RequestedToolCall(String id, String name, String arguments) {
    this(id, name, arguments, null);
  }

  /** Whether the call waited for a person's decision. */
  public boolean gated() {
    return Boolean.TRUE.equals(awaitsApproval);
  }
}
