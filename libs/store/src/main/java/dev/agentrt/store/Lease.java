package dev.agentrt.store;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A hold on a document's work as stored ({@link Leases}): who holds it and until when, unless
 * renewed. Anyone may take it once {@code leaseUntil} has passed.
 *
 * @param holder the instance holding it; null once it let go
 */
public record Lease(@Nullable String holder, Instant leaseUntil) {}
