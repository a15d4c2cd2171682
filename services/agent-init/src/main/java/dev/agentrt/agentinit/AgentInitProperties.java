package dev.agentrt.agentinit;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.agent-init.*}: how often {@link UnstartedTaskSweep} looks for tasks whose start
 * was lost, and how long a task must have been {@code created} before it counts as lost.
 */
@ConfigurationProperties("agentrt.agent-init")
record AgentInitProperties(
    @DefaultValue("10s") Duration sweepInterval, @DefaultValue("10s") Duration sweepGrace) {}
