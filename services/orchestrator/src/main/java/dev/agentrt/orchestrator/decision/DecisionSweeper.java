package dev.agentrt.orchestrator.decision;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Keeps this orchestrator's holds on the chats it decides alive, then takes up the messages no
 * event brought here: those of chats whose holder died (its hold expired) and those whose event was
 * lost. Safe with several orchestrators: a chat is taken by a conditional update.
 */
@Component
class DecisionSweeper {

  private static final Logger log = LoggerFactory.getLogger(DecisionSweeper.class);

  private final ChatDecisions decisions;

  DecisionSweeper(ChatDecisions decisions) {
    this.decisions = decisions;
  }

  @Scheduled(
      fixedDelayString = "${agentrt.orchestrator.sweep-interval:5s}",
      initialDelayString = "${agentrt.orchestrator.sweep-interval:5s}")
  void sweep() {
    try {
      decisions.renewHolds();
      decisions.chatsAwaitingDecision().forEach(decisions::offer);
    } catch (RuntimeException e) {
      log.warn("sweep of the chats awaiting a decision failed: {}", e.toString());
    }
  }
}
