package dev.agentrt.agentloop;

import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.store.ChatLimits;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.limits.*}: what one run of a sub-agent may spend before it is stopped. A run is
 * the work between two messages of the person (see {@link ConversationState#stepsThisRun}). The
 * agent's {@code maxSteps} and the chat's limits tighten these; the smallest applies.
 *
 * @param maxSteps model turns per run, repair turns included
 * @param maxTokens prompt and completion tokens per run, repair turns included
 * @param warnAt the share of the token budget at which a {@code budget_warning} is recorded
 * @param deadline how long a run may work; the clock restarts when the person answers a question
 * @param repeats how many identical tool calls with identical results in a row make the agent
 *     stagnate: at this count it is told, one more fails the run
 * @param maxDepth how deep a tree of tasks may grow through {@code message_agent}: a task the
 *     orchestrator started is at depth 0, its child at 1; a call that would start a child deeper
 *     fails with {@code depth_exceeded}
 */
@ConfigurationProperties("agentrt.limits")
record RunLimits(
    @DefaultValue("25") int maxSteps,
    @DefaultValue("50000") long maxTokens,
    @DefaultValue("0.9") double warnAt,
    @DefaultValue("10m") Duration deadline,
    @DefaultValue("3") int repeats,
    @DefaultValue("5") int maxDepth) {

  /**
   * The limits of one run: these, the agent's and the chat's, whichever is smallest.
   *
   * @param until for a child task, when its caller's deadline ends every run of it, however
   *     recently the run's own clock started; null for a task the orchestrator started
   */
  record Effective(
      int maxSteps,
      long maxTokens,
      long warnTokens,
      Duration deadline,
      int repeats,
      @Nullable Instant until) {}

  Effective of(AgentDefinition agent, @Nullable ChatLimits chat, @Nullable Instant until) {
    ChatLimits person = chat == null ? ChatLimits.NONE : chat;
    int steps = Math.min(maxSteps, agent.maxSteps());
    if (person.maxSteps() != null) {
      steps = Math.min(steps, person.maxSteps());
    }
    long tokens = person.maxTokens() == null ? maxTokens : Math.min(maxTokens, person.maxTokens());
    Duration time =
        person.deadlineSeconds() == null
            ? deadline
            : min(deadline, Duration.ofSeconds(person.deadlineSeconds()));
    return new Effective(steps, tokens, (long) Math.ceil(tokens * warnAt), time, repeats, until);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
