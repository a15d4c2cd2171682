package dev.agentrt.agentloop;

import static dev.agentrt.events.TaskFailed.BUDGET_EXCEEDED;
import static dev.agentrt.events.TaskFailed.STAGNATED;
import static dev.agentrt.events.TaskFailed.STEP_LIMIT_EXCEEDED;
import static dev.agentrt.events.TaskFailed.TIMEOUT;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A limit that stops a run before its next turn, with the reason the task fails with (one of {@link
 * dev.agentrt.events.TaskFailed}'s limits) and a sentence for the person (the caller adds what was
 * done so far).
 */
record LimitReached(String reason, String message) {

  /** The first limit this run has reached, checked before a turn is claimed. */
  static Optional<LimitReached> check(
      ConversationState conversation, RunLimits.Effective run, Instant now) {
    if (conversation.stepsThisRun() >= run.maxSteps()) {
      return Optional.of(
          new LimitReached(
              STEP_LIMIT_EXCEEDED,
              "Stopped by the step limit: "
                  + run.maxSteps()
                  + " model turns without a final answer."));
    }
    long used = conversation.tokensThisRun();
    if (used >= run.maxTokens()) {
      return Optional.of(new LimitReached(BUDGET_EXCEEDED, budget(used, run)));
    }
    if (now.isAfter(deadline(conversation, run))) {
      return Optional.of(new LimitReached(TIMEOUT, timeout(conversation, run)));
    }
    int repeated = conversation.repeatedCalls();
    if (repeated > run.repeats()) {
      return Optional.of(
          new LimitReached(
              STAGNATED,
              "Stopped for repeating itself: the same tool call with the same result "
                  + repeated
                  + " times in a row."));
    }
    return Optional.empty();
  }

  /**
   * When the run must end: its clock's start plus the deadline, or a child's caller's deadline if
   * that comes first.
   */
  static Instant deadline(ConversationState conversation, RunLimits.Effective run) {
    Instant own = ownDeadline(conversation, run);
    return run.until() != null && run.until().isBefore(own) ? run.until() : own;
  }

  private static Instant ownDeadline(ConversationState conversation, RunLimits.Effective run) {
    return conversation.clockStartedAt().orElse(Instant.now()).plus(run.deadline());
  }

  static String budget(long used, RunLimits.Effective run) {
    return "Stopped by the token budget: " + used + " of " + run.maxTokens() + " tokens used.";
  }

  static String timeout(ConversationState conversation, RunLimits.Effective run) {
    if (run.until() != null && run.until().isBefore(ownDeadline(conversation, run))) {
      return "Stopped by the deadline of the task that asked for this work: it had to end by "
          + run.until()
          + ".";
    }
    return "Stopped by the deadline: the run worked longer than " + human(run.deadline()) + ".";
  }

  private static String human(Duration d) {
    return d.toSeconds() % 60 == 0 && d.toMinutes() > 0
        ? d.toMinutes() + " min"
        : d.toSeconds() + " s";
  }
}
