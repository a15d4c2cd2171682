package dev.agentrt.store;

/**
 * A tool call as the model asked for it, inside an assistant message: the chat-completions shape.
 * {@code id} is the model's id for the call; {@code arguments} is a JSON object as text.
 */
public record RequestedToolCall(String id, String name, String arguments) {}
