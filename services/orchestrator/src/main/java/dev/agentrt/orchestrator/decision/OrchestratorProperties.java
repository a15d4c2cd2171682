package dev.agentrt.orchestrator.decision;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.orchestrator.*}: how much of the chat the model sees, how long a decision may
 * take, and how a chat being decided is held.
 *
 * @param historySize the last chat messages the model sees when it decides
 * @param modelAttempts model calls per question before giving up (transient failures are retried)
 * @param modelBackoff the wait after the first failed attempt; it doubles after each one
 * @param modelTimeout the longest one model call may take
 * @param decisionDeadline the longest a whole decision may take, repair and retries included
 * @param decisionLease how long a hold on a chat being decided lasts unless renewed; the chats of
 *     an orchestrator that died are taken up again after it. Holds are renewed every sweep, so keep
 *     it several sweep intervals long
 * @param sweepInterval how often holds are renewed and messages awaiting a decision looked for
 */
@ConfigurationProperties("agentrt.orchestrator")
record OrchestratorProperties(
    @DefaultValue("20") int historySize,
    @DefaultValue("5") int modelAttempts,
    @DefaultValue("1s") Duration modelBackoff,
    @DefaultValue("60s") Duration modelTimeout,
    @DefaultValue("150s") Duration decisionDeadline,
    @DefaultValue("20s") Duration decisionLease,
    @DefaultValue("5s") Duration sweepInterval) {}
