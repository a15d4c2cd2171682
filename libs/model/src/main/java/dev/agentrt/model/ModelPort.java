package dev.agentrt.model;

/**
 * One model turn: messages, tool definitions and options in; one assistant message (content and/or
 * tool calls), usage, finish reason and latency out. Every model call of the product goes through
 * this port, so providers, limits and accounting live in one place.
 */
public interface ModelPort {

  /**
   * @throws ModelException when the model cannot answer; {@link ModelException#transientFailure()}
   *     says whether trying again may help
   */
  ModelReply complete(ModelRequest request);
}
