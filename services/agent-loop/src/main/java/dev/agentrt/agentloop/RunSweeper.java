package dev.agentrt.agentloop;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Takes care of runs no event wakes: sub-agents whose turn's lease expired are woken, so work a
 * dead worker held is taken again; runs past their deadline are failed. Safe with several copies
 * running: waking claims the turn by a conditional update, and failing moves statuses once.
 */
@Component
class RunSweeper {

  private static final Logger log = LoggerFactory.getLogger(RunSweeper.class);

  private final AgentLoop loop;

  RunSweeper(AgentLoop loop) {
    this.loop = loop;
  }

  @Scheduled(
      fixedDelayString = "${agentrt.agent-loop.sweep-interval:5s}",
      initialDelayString = "${agentrt.agent-loop.sweep-interval:5s}")
  void sweep() {
    for (String subAgentId : loop.expiredTurns()) {
      log.info("turn of sub-agent {} outlived its lease; taking it again", subAgentId);
      try {
        loop.wake(subAgentId);
      } catch (RuntimeException e) {
        log.warn("could not take back the turn of sub-agent {}: {}", subAgentId, e.getMessage());
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
