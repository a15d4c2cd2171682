package dev.agentrt.platform.outbox;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.outbox.*}: the collections whose outboxes this service relays, how old an entry
 * must be before the relay takes it over from its writer, how many failed attempts to publish an
 * entry the relay makes before it sets the entry aside, and the collections whose published entries
 * are removed later ({@code removed-later}, within about {@code removal-delay}, many in one write;
 * see {@link Outbox}). {@code removal-delay} is the delay of the process's other writes made later
 * too ({@link dev.agentrt.platform.LaterUpdates}: a tool call's end of hold, a written answer's
 * pending answer removed).
 */
@ConfigurationProperties("agentrt.outbox")
public record OutboxProperties(
    @DefaultValue List<String> collections,
    @DefaultValue("2s") Duration grace,
    @DefaultValue("5") int maxAttempts,
    @DefaultValue List<String> removedLater,
    @DefaultValue("100ms") Duration removalDelay) {}
