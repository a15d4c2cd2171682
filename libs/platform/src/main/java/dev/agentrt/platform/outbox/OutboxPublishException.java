package dev.agentrt.platform.outbox;

/** The broker did not acknowledge an outbox's events; they stay stored and the relay retries. */
public class OutboxPublishException extends RuntimeException {

  public OutboxPublishException(String collection, Object documentId, Throwable cause) {
    super(
        "could not publish the outbox of "
            + collection
            + "/"
            + documentId
            + ": "
            + cause.getMessage(),
        cause);
  }
}
