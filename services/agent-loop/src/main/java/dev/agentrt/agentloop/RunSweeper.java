package dev.agentrt.agentloop;

import dev.agentrt.store.LeaseSweeper;
import dev.agentrt.store.LeasedWork;
import dev.agentrt.store.Leases;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The turns as leased work: {@link LeaseSweeper} renews the turns this instance runs (the
 * heartbeat), then {@link #sweep} takes care of runs no event wakes: sub-agents whose turn's lease
 * expired are woken, so a turn a dead worker held is taken again; so are sub-agents with a message
 * whose event was lost; failures whose worker died before it failed their task are finished; runs
 * past their deadline are failed. Safe with several copies running: waking takes the turn by a
 * conditional write, and failing moves statuses once.
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
    each(
        loop.expiredTurns(),
        "turn of sub-agent {} outlived its lease; taking it again",
        "take back the turn of",
        loop::wake);
    each(
        loop.unlookedMessages(),
        "sub-agent {} has a message nobody looked at; waking it",
        "look again at",
        loop::lookAgain);
    each(
        loop.unfinishedFailures(),
        "the failure of sub-agent {} was not finished; failing its task",
        "finish the failure of",
        loop::finishFailure);
    each(loop.overdueRuns(), null, "end the overdue run of", loop::enforceDeadline);
  }

  /**
   * Does {@code what} to each sub-agent, logging {@code found} (if any) first; one that fails is
   * logged and left to the next sweep.
   */
  private static void each(
      List<String> subAgentIds, @Nullable String found, String failedTo, Consumer<String> what) {
    for (String subAgentId : subAgentIds) {
      if (found != null) {
        log.info(found, subAgentId);
      }
      try {
        what.accept(subAgentId);
      } catch (RuntimeException e) {
        log.warn("could not {} sub-agent {}: {}", failedTo, subAgentId, e.getMessage());
      }
    }
  }
}
