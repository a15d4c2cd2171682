package dev.agentrt.orchestrator.decision;

import dev.agentrt.platform.outbox.OutboxEntry;
import java.util.List;
import java.util.Map;

/** A document that was written with events in its outbox, and those events: what to publish. */
record Publication(
    String collection, String documentId, List<OutboxEntry> outbox, Map<String, String> headers) {

  Publication(String collection, String documentId, List<OutboxEntry> outbox) {
    this(collection, documentId, outbox, Map.of());
  }
}
