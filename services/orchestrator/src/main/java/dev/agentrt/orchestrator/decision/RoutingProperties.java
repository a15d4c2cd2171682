package dev.agentrt.orchestrator.decision;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.routing.*} ({@code AGENTRT_ROUTING_MIN_CONFIDENCE}).
 *
 * @param minConfidence a new task decided with less confidence goes to the fallback agent, or the
 *     person is asked to clarify when there is none
 */
@ConfigurationProperties("agentrt.routing")
record RoutingProperties(@DefaultValue("0.7") double minConfidence) {

  RoutingProperties {
    if (minConfidence < 0 || minConfidence > 1) {
      throw new IllegalArgumentException(
          "agentrt.routing.min-confidence must be between 0 and 1, not " + minConfidence);
    }
  }
}
