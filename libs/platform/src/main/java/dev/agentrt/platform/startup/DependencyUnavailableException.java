package dev.agentrt.platform.startup;

/** Kafka or MongoDB cannot be reached at start-up. Its message is the whole story, in one line. */
public class DependencyUnavailableException extends RuntimeException {

  public DependencyUnavailableException(String message) {
    super(message, null, false, false);
  }
}
