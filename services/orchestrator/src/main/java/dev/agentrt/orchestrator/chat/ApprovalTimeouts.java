package dev.agentrt.orchestrator.chat;

import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Rejects, with the reason {@code timeout}, every call that has awaited approval longer than {@code
 * agentrt.approval.timeout} ({@code AGENTRT_APPROVAL_TIMEOUT}, 24 h): the model reads the rejection
 * and goes on, so no run waits for ever. Safe in any number of copies: each rejection is the same
 * conditional update a person's decision is, so a call is decided once.
 */
@Component
class ApprovalTimeouts {

  /** Calls one sweep rejects at most; the next sweep takes the rest. */
  static final int BATCH = 100;

  private static final Logger log = LoggerFactory.getLogger(ApprovalTimeouts.class);

  private final ToolCallApprovals approvals;
  private final Duration timeout;
  private final Clock clock = Clock.systemUTC();

  ApprovalTimeouts(
      ToolCallApprovals approvals, @Value("${agentrt.approval.timeout:24h}") Duration timeout) {
    this.approvals = approvals;
    this.timeout = timeout;
  }

  @Scheduled(
      fixedDelayString = "${agentrt.approval.sweep-interval:10s}",
      initialDelayString = "${agentrt.approval.sweep-interval:10s}")
  void sweep() {
    try {
      int rejected = approvals.rejectAwaitingSince(clock.instant().minus(timeout), BATCH);
      if (rejected > 0) {
        log.info("{} call(s) awaited approval longer than {}: rejected", rejected, timeout);
      }
    } catch (RuntimeException e) {
      log.warn("could not reject the calls whose approval timed out; next sweep: {}", e.toString());
    }
  }
}
