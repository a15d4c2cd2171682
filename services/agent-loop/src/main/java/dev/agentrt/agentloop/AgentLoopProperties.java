package dev.agentrt.agentloop;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.agent-loop.*}. How long a turn is held and how often it is renewed are the leases
 * of every service ({@code agentrt.leases.*}).
 *
 * @param modelAttempts how many times a turn asks the model before the run fails
 * @param modelBackoff the wait after the first failed attempt; it doubles, up to 30 s
 * @param modelTimeout how long one attempt may take
 * @param maxToolCallsPerTurn how many of one answer's tool calls run; the model reads an error for
 *     each call past them
 * @param eventWait how long a turn's end that finds a message came (a fast tool's result) waits for
 *     that message's event, which carries it, before it reads the message instead; it waits only
 *     while events come within half of this on average ({@link EventLag})
 * @param resultWait how long a turn that asked for one tool call waits for the call's result before
 *     it lets go of the sub-agent: a result whose event comes meanwhile has the next turn taken by
 *     the write that ends this one, one write instead of two; it waits only while events come
 *     within half of this on average ({@link EventLag}); 0: the turn ends at once
 * @param startShownAfter how long the model thinks before the turn's {@code step_start} is recorded
 *     in the chat's ledger on its own; a model that answers sooner has it recorded with the turn's
 *     {@code step_end}, in one insert ({@link dev.agentrt.store.StepStarts}); 0: every start as its
 *     turn starts
 */
@ConfigurationProperties("agentrt.agent-loop")
record AgentLoopProperties(
    @DefaultValue("5") int modelAttempts,
    @DefaultValue("1s") Duration modelBackoff,
    @DefaultValue("60s") Duration modelTimeout,
    @DefaultValue("16") int maxToolCallsPerTurn,
    @DefaultValue("1s") Duration eventWait,
    @DefaultValue("50ms") Duration resultWait,
    @DefaultValue("50ms") Duration startShownAfter) {

  AgentLoopProperties {
    if (resultWait.isNegative()) {
      throw new IllegalArgumentException(
          "agentrt.agent-loop.result-wait must not be negative, not " + resultWait);
    }
    if (startShownAfter.isNegative()) {
      throw new IllegalArgumentException(
          "agentrt.agent-loop.start-shown-after must not be negative, not " + startShownAfter);
    }
    if (maxToolCallsPerTurn < 1) {
      throw new IllegalArgumentException(
          "agentrt.agent-loop.max-tool-calls-per-turn must be at least 1, not "
              + maxToolCallsPerTurn);
    }
  }
}
