package dev.agentrt.orchestrator.decision;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.orchestrator.*}: how much of the chat the model sees and how long a decision may
 * take. (A chat being decided is held as all work is: {@code agentrt.leases.*}.)
 *
 * @param historySize the last chat messages the model sees when it decides
 * @param modelAttempts model calls per question before giving up (transient failures are retried)
 * @param modelBackoff the wait after the first failed attempt; it doubles after each one
 * @param modelTimeout the longest one model call may take
 * @param decisionDeadline the longest a whole decision may take, repair and retries included
 */
@ConfigurationProperties("agentrt.orchestrator")
record OrchestratorProperties(
    @DefaultValue("20") int historySize,
    @DefaultValue("5") int modelAttempts,
    @DefaultValue("1s") Duration modelBackoff,
    @DefaultValue("60s") Duration modelTimeout,
    @DefaultValue("150s") Duration decisionDeadline) {}
