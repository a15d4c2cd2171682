package dev.agentrt.orchestrator.decision;

/** The model's decision cannot be carried out; the message says why, for the repair prompt. */
class InvalidDecisionException extends Exception {

  InvalidDecisionException(String reason) {
    super(reason);
  }
}
