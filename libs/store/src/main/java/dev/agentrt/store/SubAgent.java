package dev.agentrt.store;

import java.time.Instant;
import org.springframework.data.annotation.Id;
import org.springframework.data.mongodb.core.mapping.Document;

/** An agent instance working on one task, with its own conversation. */
@Document(Collections.SUB_AGENTS)
public record SubAgent(
    @Id String id,
    String taskId,
    String chatId,
    String agent,
    SubAgentStatus status,
    Instant createdAt,
    Instant updatedAt) {}
