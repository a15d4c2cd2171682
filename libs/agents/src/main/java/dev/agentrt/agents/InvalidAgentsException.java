package dev.agentrt.agents;

/** The agents file is wrong; the message names the agent and what is wrong with it. */
public class InvalidAgentsException extends RuntimeException {

  public InvalidAgentsException(String message) {
    super(message);
  }
}
