package dev.agentrt.store;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How every service holds its slow work (DESIGN invariant 4).
 *
 * @param duration how long a hold lasts unless renewed: a dead worker's work is taken up by another
 *     instance within this and one {@code renewEvery}
 * @param renewEvery the heartbeat: how often the holds are renewed and expired work is swept; well
 *     under {@code duration}
 */
@ConfigurationProperties("agentrt.leases")
public record LeaseProperties(
    @DefaultValue("30s") Duration duration, @DefaultValue("5s") Duration renewEvery) {

  public LeaseProperties {
    if (renewEvery.compareTo(duration) >= 0) {
      throw new IllegalArgumentException(
          "agentrt.leases.renew-every ("
              + renewEvery
              + ") must be shorter than agentrt.leases.duration ("
              + duration
              + "), or holds expire while their worker lives");
    }
  }
}
