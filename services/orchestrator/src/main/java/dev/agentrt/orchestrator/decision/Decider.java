package dev.agentrt.orchestrator.decision;

import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelPort;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelRetries;
import dev.agentrt.store.TurnUsage;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Asks the model what to do with a person's message. An invalid decision is repaired at most twice
 * ({@link #MAX_REPAIRS}): the model sees its own reply and why it was refused. A decision still
 * invalid after that, or a model that keeps failing, ends in an apology to the person (for a plan,
 * saying why it could not be made): a message is never dropped.
 */
@Component
class Decider {

  static final String REPAIR_PREFIX = "Your previous decision was invalid";

  /** Repair turns after an invalid decision, as for other structured outputs. */
  static final int MAX_REPAIRS = 2;

  static final String APOLOGY = "Sorry, I could not work out what to do with that.";
  static final String APOLOGY_INVALID = APOLOGY + " Could you say it another way?";
  static final String APOLOGY_NO_PLAN = "Sorry, I could not make a plan for that: ";
  static final String APOLOGY_MODEL_FAILED =
      APOLOGY + " The model is not answering right now; please try again in a moment.";

  private static final Logger log = LoggerFactory.getLogger(Decider.class);

  private final ModelRetries model;
  private final DecisionReader reader = new DecisionReader();
  private final OrchestratorProperties properties;
  private final Clock clock = Clock.systemUTC();

  Decider(ModelPort model, OrchestratorProperties properties) {
    this.model =
        new ModelRetries(
            model,
            properties.modelAttempts(),
            properties.modelBackoff(),
            properties.modelTimeout(),
            clock);
    this.properties = properties;
  }

  /** Says whether a well-formed decision can be carried out in this chat. */
  @FunctionalInterface
  interface Check {
    /**
     * @throws InvalidDecisionException naming what is wrong (an unknown agent, a foreign sub-agent)
     */
    void check(Decision decision) throws InvalidDecisionException;
  }

  /** The decision's JSON Schema, as sent to the model. */
  String schema() {
    return reader.schema();
  }

  /**
   * The decision, with the tokens of the model's replies: the first, and the repair's when there
   * was one. A call that failed has no reply and counts nothing.
   */
  record Decided(Decision decision, TurnUsage usage, int turns) {

    Decided plus(ModelReply reply) {
      return new Decided(decision, usage.plus(tokens(reply)), turns + 1);
    }

    Decided with(Decision other) {
      return new Decided(other, usage, turns);
    }

    private static TurnUsage tokens(ModelReply reply) {
      return reply.usage() == null
          ? TurnUsage.NONE
          : new TurnUsage(reply.usage().promptTokens(), reply.usage().completionTokens());
    }
  }

  /**
   * @param modelName the model to ask (null: the default model)
   */
  Decided decide(List<ModelMessage> prompt, @Nullable String modelName, Check check) {
    Instant deadline = clock.instant().plus(properties.decisionDeadline());
    Decided spent = new Decided(new Decision.Answer(APOLOGY_MODEL_FAILED), TurnUsage.NONE, 0);
    List<ModelMessage> messages = new ArrayList<>(prompt);
    for (int repairs = 0; ; repairs++) {
      ModelReply reply;
      try {
        reply = model.complete(request(messages, modelName), deadline);
      } catch (ModelException e) {
        log.error("the model failed to decide, answering with an apology: {}", e.getMessage());
        return spent.with(new Decision.Answer(APOLOGY_MODEL_FAILED));
      }
      spent = spent.plus(reply);
      try {
        return spent.with(valid(reply, check));
      } catch (InvalidDecisionException invalid) {
        if (repairs == MAX_REPAIRS) {
          log.error(
              "the decision is still invalid after {} repairs, answering with an apology: {}",
              MAX_REPAIRS,
              invalid.getMessage());
          return spent.with(new Decision.Answer(apology(reply, invalid)));
        }
        log.warn("invalid decision, asking the model to repair it: {}", invalid.getMessage());
        messages.add(
            ModelMessage.assistant(reply.content() == null ? "" : reply.content(), List.of()));
        messages.add(
            ModelMessage.user(
                REPAIR_PREFIX
                    + ": "
                    + invalid.getMessage()
                    + ".\nReply with only one JSON object that satisfies this JSON Schema:\n"
                    + reader.schema()));
      }
    }
  }

  /**
   * What the person reads when no valid decision came: a plan that could not be made says why, as
   * the person may split the request themselves; anything else asks them to say it another way.
   */
  private String apology(ModelReply reply, InvalidDecisionException invalid) {
    return reader.isPlan(reply.content())
        ? APOLOGY_NO_PLAN + invalid.getMessage() + "."
        : APOLOGY_INVALID;
  }

  private Decision valid(ModelReply reply, Check check) throws InvalidDecisionException {
    Decision decision = reader.read(reply.content());
    check.check(decision);
    return decision;
  }

  private ModelRequest request(List<ModelMessage> messages, @Nullable String modelName) {
    return new ModelRequest(
        ModelRequest.Purpose.DECISION,
        List.copyOf(messages),
        List.of(),
        reader.schema(),
        modelName);
  }
}
