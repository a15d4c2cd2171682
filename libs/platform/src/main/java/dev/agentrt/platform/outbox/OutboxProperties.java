package dev.agentrt.platform.outbox;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.outbox.*}: the collections whose outboxes this service relays, and how old an
 * entry must be before the relay takes it over from its writer.
 */
@ConfigurationProperties("agentrt.outbox")
public record OutboxProperties(
    @DefaultValue List<String> collections, @DefaultValue("2s") Duration grace) {}
