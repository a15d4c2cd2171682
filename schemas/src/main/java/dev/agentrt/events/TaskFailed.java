package dev.agentrt.events;

import java.time.Instant;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A task ended without a result. {@code reason} is a stable code (for example {@code model_error},
 * {@code step_limit_exceeded}); {@code error} says in words what went wrong.
 */
public record TaskFailed(
    String eventId,
    Instant occurredAt,
    String taskId,
    String chatId,
    @Nullable String subAgentId,
    String reason,
    String error)
    implements Event {

  /** The run took as many model turns as it may. */
  public static final String STEP_LIMIT_EXCEEDED = "step_limit_exceeded";

  /** The run used the tokens it may. */
  public static final String BUDGET_EXCEEDED = "budget_exceeded";

  /** The run worked past its deadline. */
  public static final String TIMEOUT = "timeout";

  /** The run kept making the same tool call with the same result. */
  public static final String STAGNATED = "stagnated";

  private static final Set<String> LIMITS =
      Set.of(STEP_LIMIT_EXCEEDED, BUDGET_EXCEEDED, TIMEOUT, STAGNATED);

  /**
   * Whether the run was stopped by one of the limits set for it (steps, tokens, deadline, repeats:
   * the chat's, the agent's or the runtime's) rather than by a fault (a model that kept failing, an
   * answer that broke its schema, an unknown agent). Another try would only go past the limit.
   */
  public static boolean stoppedByLimit(@Nullable String reason) {
    return reason != null && LIMITS.contains(reason);
  }

  @Override
  public String key() {
    return taskId;
  }
}
