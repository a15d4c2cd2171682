package dev.agentrt.agentloop;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.SubAgentStatus;
import dev.agentrt.store.Task;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * The sub-agent loop. {@link #wake} looks at a sub-agent's conversation and does the one thing it
 * calls for: apply the outcome of an answer already stored, wait for pending tool calls, or claim a
 * model turn. A claimed turn runs on its own virtual thread, so a slow model holds up nobody else
 * and the Kafka consumer moves on at once (DESIGN invariants 3 and 4). The claim is a conditional
 * update with a lease: two copies of this service never both answer a turn, and a turn whose worker
 * died is taken again once its lease expires.
 */
class AgentLoop {

  private static final Logger log = LoggerFactory.getLogger(AgentLoop.class);

  /** Repair turns a final answer that breaks the output schema gets before the run fails. */
  static final int MAX_REPAIRS = 2;

  private final MongoTemplate mongo;
  private final SubAgentConversations conversations;
  private final AgentCatalog agents;
  private final ModelCaller model;
  private final OutcomeRecorder recorder;
  private final OutputSchemaCheck outputs;
  private final AgentLoopProperties properties;
  private final Executor turns;
  private final ToolDefinitions tools;
  private final Clock clock = Clock.systemUTC();

  AgentLoop(
      MongoTemplate mongo,
      SubAgentConversations conversations,
      AgentCatalog agents,
      ModelCaller model,
      OutcomeRecorder recorder,
      OutputSchemaCheck outputs,
      AgentLoopProperties properties,
      Executor turns) {
    this.mongo = mongo;
    this.conversations = conversations;
    this.agents = agents;
    this.model = model;
    this.recorder = recorder;
    this.outputs = outputs;
    this.properties = properties;
    this.turns = turns;
    this.tools = new ToolDefinitions(mongo);
  }

  void wake(String subAgentId) {
    SubAgent subAgent = mongo.findById(subAgentId, SubAgent.class);
    if (subAgent == null || subAgent.status() != SubAgentStatus.active) {
      return;
    }
    ConversationState conversation = new ConversationState(conversations.messages(subAgent.id()));
    AgentDefinition agent = agents.get(subAgent.agent());
    if (conversation.lastAnswer().isPresent()) {
      settle(subAgent, agent, conversation, conversation.lastAnswer().get());
      return;
    }
    if (!conversation.awaitsModelTurn()) {
      return;
    }
    if (conversation.stepsThisRun() >= agent.maxSteps()) {
      recorder.fail(
          subAgent,
          conversation.lastSeq(),
          "step_limit_exceeded",
          "the " + agent.name() + " took " + agent.maxSteps() + " steps without finishing");
      return;
    }
    if (claimTurn(subAgent, conversation.lastSeq())) {
      turns.execute(() -> runTurn(subAgent, agent, conversation));
    }
  }

  private void runTurn(SubAgent subAgent, AgentDefinition agent, ConversationState conversation) {
    long seq = conversation.lastSeq();
    try {
      String modelName = modelFor(subAgent, agent);
      ModelReply reply = model.call(request(agent, conversation, modelName));
      if (!stillActive(subAgent)) {
        log.info(
            "sub-agent {} stopped (cancelled) during its turn; the answer is dropped",
            subAgent.id());
        releaseTurn(subAgent, seq);
        return;
      }
      settle(subAgent, agent, conversation, recorder.storeAnswer(subAgent, seq, reply, modelName));
    } catch (ModelException e) {
      recorder.fail(subAgent, seq, "model_error", e.getMessage());
    } catch (RuntimeException e) {
      log.error(
          "turn {} of sub-agent {} failed; it is retried when its lease expires",
          seq,
          subAgent.id(),
          e);
      return;
    }
    releaseTurn(subAgent, seq);
    wake(subAgent.id()); // a message may have arrived while the model was thinking
  }

  /**
   * Carries out a stored answer. A final answer that breaks the agent's output schema is sent back
   * for repair, twice at most; a third such answer fails the run with {@code validation_error}.
   */
  private void settle(
      SubAgent subAgent,
      AgentDefinition agent,
      ConversationState conversation,
      SubAgentMessage answer) {
    if (agent.outputSchema() != null
        && TurnOutcome.of(answer) instanceof TurnOutcome.FinalAnswer finalAnswer) {
      List<String> problems = outputs.problems(agent.outputSchema(), finalAnswer.answer());
      if (!problems.isEmpty()) {
        if (conversation.repairsThisRun() < MAX_REPAIRS) {
          recorder.askForRepair(subAgent, answer, problems, agent.outputSchema());
        } else {
          recorder.fail(
              subAgent,
              answer.seq(),
              "validation_error",
              "the final answer still breaks the output schema after "
                  + MAX_REPAIRS
                  + " repairs: "
                  + String.join("; ", problems));
        }
        return;
      }
    }
    recorder.apply(subAgent, answer);
  }

  /**
   * The model of the turn: the task's (chosen for the message or the chat that started it), else
   * the agent's; null asks for the default model.
   */
  private @Nullable String modelFor(SubAgent subAgent, AgentDefinition agent) {
    Task task = mongo.findById(subAgent.taskId(), Task.class);
    return task != null && task.model() != null ? task.model() : agent.model();
  }

  private ModelRequest request(
      AgentDefinition agent, ConversationState conversation, @Nullable String modelName) {
    List<ModelMessage> messages =
        conversation.modelContext().stream().map(AgentLoop::toModel).toList();
    return new ModelRequest(
        ModelRequest.Purpose.AGENT_TURN,
        messages,
        tools.forAgent(agent),
        agent.outputSchema(),
        modelName);
  }

  private static ModelMessage toModel(SubAgentMessage m) {
    return new ModelMessage(
        m.role(),
        m.content(),
        m.toolCalls().stream()
            .map(c -> new ModelToolCall(c.id(), c.name(), c.arguments()))
            .toList(),
        m.toolCallId());
  }

  private boolean stillActive(SubAgent subAgent) {
    SubAgent now = mongo.findById(subAgent.id(), SubAgent.class);
    return now != null && now.status() == SubAgentStatus.active;
  }

  /** Takes the turn unless another worker holds it under a live lease. */
  private boolean claimTurn(SubAgent subAgent, long seq) {
    Instant now = clock.instant();
    Query unclaimed =
        Query.query(
            Criteria.where("_id")
                .is(subAgent.id())
                .and("status")
                .is(SubAgentStatus.active)
                .orOperator(
                    Criteria.where("turn").is(null), Criteria.where("turn.leaseUntil").lt(now)));
    Update claim =
        new Update().set("turn", new SubAgent.Turn(seq, now.plus(properties.turnLease())));
    return mongo.updateFirst(unclaimed, claim, SubAgent.class).getModifiedCount() == 1;
  }

  private void releaseTurn(SubAgent subAgent, long seq) {
    mongo.updateFirst(
        Query.query(Criteria.where("_id").is(subAgent.id()).and("turn.seq").is(seq)),
        new Update().unset("turn"),
        SubAgent.class);
  }

  /** Sub-agents whose turn's lease expired: their worker died mid-turn. */
  List<String> expiredTurns() {
    Query expired =
        Query.query(
            Criteria.where("status")
                .is(SubAgentStatus.active)
                .and("turn.leaseUntil")
                .lt(clock.instant()));
    expired.fields().include("_id");
    return mongo.find(expired, SubAgent.class).stream().map(SubAgent::id).toList();
  }
}
