package dev.agentrt.finalizer;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.finalizer.*}: how much of the chat the model sees, how long writing an answer may
 * take before the plain answer is written instead. (An answer being written is held as all work is:
 * {@code agentrt.leases.*}.)
 *
 * @param historySize the chat's last messages the model sees
 * @param modelAttempts model calls before giving up (transient failures are retried)
 * @param modelBackoff the wait after the first failed attempt; it doubles after each one
 * @param modelTimeout the longest one model call may take
 * @param answerDeadline the longest all attempts together may take
 */
@ConfigurationProperties("agentrt.finalizer")
record FinalizerProperties(
    @DefaultValue("6") int historySize,
    @DefaultValue("5") int modelAttempts,
    @DefaultValue("1s") Duration modelBackoff,
    @DefaultValue("60s") Duration modelTimeout,
    @DefaultValue("150s") Duration answerDeadline) {}
