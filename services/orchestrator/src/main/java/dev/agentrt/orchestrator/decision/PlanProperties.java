package dev.agentrt.orchestrator.decision;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.plans.*} ({@code AGENTRT_PLANS_MAX_NODES}).
 *
 * @param maxNodes the most nodes a plan may have; a bigger one is refused and repaired
 */
@ConfigurationProperties("agentrt.plans")
record PlanProperties(@DefaultValue("12") int maxNodes) {}
