package dev.agentrt.store;

import dev.agentrt.events.TaskCreated;
import org.jspecify.annotations.Nullable;

/**
 * Limits a person set for the runs of one chat; each tightens the global and the agent's limit (the
 * smallest applies), null leaves them as they are.
 *
 * @param maxSteps model turns per run
 * @param maxTokens tokens (prompt and completion) per run
 * @param deadlineSeconds seconds of work per run
 */
public record ChatLimits(
    @Nullable Integer maxSteps, @Nullable Long maxTokens, @Nullable Long deadlineSeconds) {

  public static final ChatLimits NONE = new ChatLimits(null, null, null);

  /** These limits as a {@link TaskCreated} carries them. */
  public TaskCreated.Limits carried() {
    return new TaskCreated.Limits(maxSteps, maxTokens, deadlineSeconds);
  }

  /** The limits a {@link TaskCreated} carries, as a chat stores them: null when none is set. */
  public static @Nullable ChatLimits of(TaskCreated.Limits carried) {
    ChatLimits limits =
        new ChatLimits(carried.maxSteps(), carried.maxTokens(), carried.deadlineSeconds());
    return limits.equals(NONE) ? null : limits;
  }
}
