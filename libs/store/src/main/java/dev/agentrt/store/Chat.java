package dev.agentrt.store;

import java.time.Instant;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/** A conversation between a person and the orchestrator. */
@Document(Collections.CHATS)
public record Chat(@MongoId(FieldType.STRING) String id, String title, Instant createdAt) {}
