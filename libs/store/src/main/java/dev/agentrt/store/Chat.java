package dev.agentrt.store;

import java.time.Instant;
import org.springframework.data.annotation.Id;
import org.springframework.data.mongodb.core.mapping.Document;

/** A conversation between a person and the orchestrator. */
@Document(Collections.CHATS)
public record Chat(@Id String id, String title, Instant createdAt) {}
