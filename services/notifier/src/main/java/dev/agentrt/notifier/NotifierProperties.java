package dev.agentrt.notifier;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.notifier.*}: how often {@link UnaskedQuestionSweep} looks for questions whose
 * event was lost, and how long a task must have been {@code waiting} before it looks at it.
 */
@ConfigurationProperties("agentrt.notifier")
record NotifierProperties(
    @DefaultValue("10s") Duration sweepInterval, @DefaultValue("10s") Duration sweepGrace) {}
