package dev.agentrt.store;

/**
 * The version of the configuration that shapes a run's answers: a {@link Digest} of the agents file
 * and of the model settings, computed once at start-up where the agents file is read (libs/agents),
 * the same in every process given the same files and settings. The ledger stamps it on every {@code
 * run_start} ({@link RunLedger}); each model turn keeps it with its input ({@link TurnInput}), so a
 * replay can tell whether the configuration changed since.
 */
public record ConfigVersion(String value) {}
