package dev.agentrt.agentloop;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.agent-loop.*}.
 *
 * @param modelAttempts how many times a turn asks the model before the run fails
 * @param modelBackoff the wait after the first failed attempt; it doubles, up to 30 s
 * @param modelTimeout how long one attempt may take
 * @param turnLease how long a claimed turn is held; a turn whose worker died is taken again after
 *     it (keep it above the slowest model call with its retries)
 * @param sweepInterval how often expired turns are looked for
 */
@ConfigurationProperties("agentrt.agent-loop")
record AgentLoopProperties(
    @DefaultValue("5") int modelAttempts,
    @DefaultValue("1s") Duration modelBackoff,
    @DefaultValue("60s") Duration modelTimeout,
    @DefaultValue("10m") Duration turnLease,
    @DefaultValue("5s") Duration sweepInterval) {}
