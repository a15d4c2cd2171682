package dev.agentrt.events;

/**
 * A record that is not a valid event: not JSON, of an unknown type, or failing its schema. The
 * message names what is wrong (for a schema violation, the offending field). Such a record is
 * dead-lettered, never retried.
 */
public class InvalidEventException extends RuntimeException {

  public InvalidEventException(String message) {
    super(message);
  }

  public InvalidEventException(String message, Throwable cause) {
    super(message, cause);
  }
}
