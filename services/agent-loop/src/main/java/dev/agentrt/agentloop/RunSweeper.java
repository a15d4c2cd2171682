package dev.agentrt.agentloop;

import dev.agentrt.store.LeaseSweeper;
import dev.agentrt.store.LeasedWork;
import dev.agentrt.store.Leases;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The turns as leased work: {@link LeaseSweeper} renews the turns this instance runs (the
 * heartbeat), then {@link #sweep} takes care of runs no event wakes: sub-agents whose turn's lease
 * expired are woken, so a turn a dead worker held is taken again; so are sub-agents with a message
 * whose event was lost; runs past their deadline are failed. Safe with several copies running:
 * waking takes the turn by a conditional write, and failing moves statuses once.
 */
@Component
class RunSweeper implements LeasedWork {

  private static final Logger log = LoggerFactory.getLogger(RunSweeper.class);

  private final AgentLoop loop;
  private final Leases turns;

  RunSweeper(AgentLoop loop, Leases turns) {
    this.loop = loop;
    this.turns = turns;
  }

  @Override
  public Leases leases() {
    return turns;
  }

  @Override
  public void sweep() {
    for (String subAgentId : loop.expiredTurns()) {
      log.info("turn of sub-agent {} outlived its lease; taking it again", subAgentId);
      try {
        loop.wake(subAgentId);
      } catch (RuntimeException e) {
        log.warn("could not take back the turn of sub-agent {}: {}", subAgentId, e.getMessage());
      }
    }
    for (String subAgentId : loop.unlookedMessages()) {
      log.info("sub-agent {} has a message nobody looked at; waking it", subAgentId);
      try {
        loop.lookAgain(subAgentId);
      } catch (RuntimeException e) {
        log.warn("could not look again at sub-agent {}: {}", subAgentId, e.getMessage());
      }
    }
    for (String subAgentId : loop.overdueRuns()) {
      try {
        loop.enforceDeadline(subAgentId);
      } catch (RuntimeException e) {
        log.warn("could not end the overdue run of sub-agent {}: {}", subAgentId, e.getMessage());
      }
    }
  }
}
