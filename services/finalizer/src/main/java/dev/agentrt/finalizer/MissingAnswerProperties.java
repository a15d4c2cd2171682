package dev.agentrt.finalizer;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.finalizer.missing-answers.*}: how often {@link MissingAnswerSweep} looks for ended
 * tasks whose answer is missing, how long a task must have ended before it looks (its event is
 * normally handled within it), and how far back it looks.
 */
@ConfigurationProperties("agentrt.finalizer.missing-answers")
record MissingAnswerProperties(
    @DefaultValue("10s") Duration sweepInterval,
    @DefaultValue("10s") Duration grace,
    @DefaultValue("1h") Duration lookback) {}
