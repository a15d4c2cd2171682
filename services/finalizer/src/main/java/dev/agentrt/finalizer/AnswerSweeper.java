package dev.agentrt.finalizer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Keeps this finalizer's holds on the answers it writes alive, then takes up the pending answers
 * nobody holds: those of a finalizer that died (its hold expired), let go when it stopped, or whose
 * writing failed. Safe with several finalizers: a pending answer is taken by a conditional update.
 */
@Component
class AnswerSweeper {

  private static final Logger log = LoggerFactory.getLogger(AnswerSweeper.class);

  private final PendingAnswers pending;

  AnswerSweeper(PendingAnswers pending) {
    this.pending = pending;
  }

  @Scheduled(
      fixedDelayString = "${agentrt.finalizer.sweep-interval:5s}",
      initialDelayString = "${agentrt.finalizer.sweep-interval:5s}")
  void sweep() {
    try {
      pending.renewHolds();
      pending.unheld().forEach(pending::takeUp);
    } catch (RuntimeException e) {
      log.warn("sweep of the pending answers failed: {}", e.toString());
    }
  }
}
