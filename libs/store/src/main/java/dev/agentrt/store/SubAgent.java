package dev.agentrt.store;

import java.time.Instant;
import org.springframework.data.mongodb.core.mapping.Document;
import org.springframework.data.mongodb.core.mapping.FieldType;
import org.springframework.data.mongodb.core.mapping.MongoId;

/** An agent instance working on one task, with its own conversation. */
@Document(Collections.SUB_AGENTS)
public record SubAgent(
    @MongoId(FieldType.STRING) String id,
    String taskId,
    String chatId,
    String agent,
    SubAgentStatus status,
    Instant createdAt,
    Instant updatedAt) {}
