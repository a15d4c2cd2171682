package dev.agentrt.orchestrator.events;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How the chat event stream follows the ledger, and how many streams this orchestrator serves.
 *
 * @param pollInterval how often a stream looks for new events
 * @param heartbeat how long a stream may stay silent before it sends a comment line
 * @param gapGrace how long a stream waits for a missing position that is not recorded as skipped
 *     before it moves past it (a position is taken before its event is written, so a later event
 *     can be visible first; only a writer that died in between leaves a position that never fills).
 *     Longer than an append waits for its insert (10 s), so a slow write is waited for, not lost.
 * @param streamTimeout how long one connection lasts; the client reconnects with Last-Event-ID
 * @param maxStreamsPerChat streams one chat may have open on this orchestrator at once
 * @param maxStreams streams this orchestrator serves at once, all chats together
 */
@ConfigurationProperties("agentrt.events")
public record EventsProperties(
    @DefaultValue("200ms") Duration pollInterval,
    @DefaultValue("15s") Duration heartbeat,
    @DefaultValue("15s") Duration gapGrace,
    @DefaultValue("30m") Duration streamTimeout,
    @DefaultValue("8") int maxStreamsPerChat,
    @DefaultValue("1000") int maxStreams) {

  public EventsProperties {
    if (maxStreamsPerChat < 1 || maxStreams < 1) {
      throw new IllegalArgumentException(
          "agentrt.events.max-streams-per-chat and max-streams must be at least 1, got: "
              + maxStreamsPerChat
              + " and "
              + maxStreams);
    }
  }
}
