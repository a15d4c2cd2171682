package dev.agentrt.orchestrator.chat;

import dev.agentrt.agents.AgentCatalog;
import dev.agentrt.agents.AgentDefinition;
import dev.agentrt.agents.ToolDefinitions;
import dev.agentrt.agents.TurnRequests;
import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelPort;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRetries;
import dev.agentrt.orchestrator.models.ModelNames;
import dev.agentrt.store.ConfigVersion;
import dev.agentrt.store.SubAgent;
import dev.agentrt.store.SubAgentConversations;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.Task;
import dev.agentrt.store.TurnInput;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ResponseStatusException;

/**
 * Runs one model turn of a task again, on the input its answer kept ({@link TurnInput}), and
 * returns the new answer beside the recorded one. It has no side effect: no tool runs, nothing is
 * stored (not in the conversation, not in the ledger, no tokens counted). The request is built by
 * the code the agent loop built it with ({@link TurnRequests}), from the messages the turn read;
 * what can no longer be as it was (the agents file or model settings changed, the tools'
 * definitions changed, a message was stored late) is said in {@link Replay#inputChanges}, not
 * hidden.
 */
@Component
class TurnReplay {

  private final MongoTemplate mongo;
  private final SubAgentConversations conversations;
  private final AgentCatalog agents;
  private final TurnRequests requests;
  private final ModelRetries model;
  private final ModelNames names;

  TurnReplay(
      MongoTemplate mongo,
      SubAgentConversations conversations,
      AgentCatalog agents,
      ModelPort model,
      ModelNames names,
      ConfigVersion config,
      @Value("${agentrt.orchestrator.model-timeout:60s}") Duration timeout) {
    this.mongo = mongo;
    this.conversations = conversations;
    this.agents = agents;
    this.requests = new TurnRequests(agents, new ToolDefinitions(mongo), config);
    this.model = new ModelRetries(model, 1, Duration.ZERO, timeout, Clock.systemUTC());
    this.names = names;
  }

  /**
   * @param turn which of the sub-agent's model turns, from 1, as the task's timeline numbers them
   * @param model the model that answers the replay, the turn's own model when null
   * @param recorded the turn's stored answer
   * @param replayed the new answer
   * @param sameAnswer whether the new answer has the recorded one's text and tool calls (names and
   *     arguments; the ids a model gives its calls may differ)
   * @param inputChanges what of the turn's input could not be as it was, in words; empty when the
   *     replay's input is exactly the turn's
   */
  record Replay(
      int turn,
      String model,
      Answer recorded,
      Answer replayed,
      boolean sameAnswer,
      List<String> inputChanges) {}

  /**
   * @param model the model that answered (the configured default for a turn that named none)
   * @param text the answer's text; absent when it only called tools
   */
  record Answer(String model, @Nullable String text, List<Call> toolCalls) {}

  /** A tool call of an answer: the tool and its arguments (JSON). */
  record Call(String name, String arguments) {}

  /**
   * @throws ResponseStatusException {@code 400} for a turn number below 1 or an unknown model;
   *     {@code 409} for a turn the task has not taken, one stored before turns kept their input, or
   *     one whose agent is no longer declared; {@code 502} when the model fails
   */
  Replay replay(Task task, int turn, @Nullable String modelName) {
    if (turn < 1) {
      throw refused(HttpStatus.BAD_REQUEST, "turns are numbered from 1; there is no turn " + turn);
    }
    if (modelName != null && !names.knows(modelName)) {
      throw refused(HttpStatus.BAD_REQUEST, names.unknown(modelName));
    }
    SubAgent subAgent =
        task.subAgentId() == null ? null : mongo.findById(task.subAgentId(), SubAgent.class);
    List<SubAgentMessage> conversation =
        subAgent == null ? List.of() : conversations.messages(subAgent.id());
    List<SubAgentMessage> answers =
        conversation.stream().filter(m -> SubAgentMessage.ASSISTANT.equals(m.role())).toList();
    if (turn > answers.size()) {
      throw refused(
          HttpStatus.CONFLICT,
          "task " + task.id() + " has taken " + answers.size() + " model turn(s), not " + turn);
    }
    SubAgentMessage answer = answers.get(turn - 1);
    TurnInput input = answer.input();
    if (input == null) {
      throw refused(
          HttpStatus.CONFLICT,
          "turn "
              + turn
              + " was stored before model turns kept their input: it cannot be replayed exactly");
    }
    AgentDefinition agent =
        agents
            .find(subAgent.agent())
            .orElseThrow(
                () ->
                    refused(
                        HttpStatus.CONFLICT,
                        "the agent '" + subAgent.agent() + "' is no longer in the agents file"));
    List<SubAgentMessage> read = conversation.stream().filter(m -> m.seq() <= input.seq()).toList();
    String asked = modelName != null ? modelName : answer.model();
    TurnRequests.Turn again;
    try {
      again = requests.of(agent, read, asked);
    } catch (IllegalArgumentException e) {
      throw refused(HttpStatus.CONFLICT, "the agents file changed: " + e.getMessage());
    }
    ModelReply reply;
    try {
      reply = model.complete(again.request(), Instant.MAX);
    } catch (ModelException e) {
      throw refused(HttpStatus.BAD_GATEWAY, "the model failed: " + e.getMessage());
    }
    Answer recorded =
        new Answer(
            modelOrDefault(answer.model()),
            answer.content(),
            answer.toolCalls().stream().map(c -> new Call(c.name(), c.arguments())).toList());
    Answer replayed =
        new Answer(
            modelOrDefault(asked),
            reply.content(),
            reply.toolCalls().stream().map(c -> new Call(c.name(), c.arguments())).toList());
    return new Replay(
        turn,
        modelOrDefault(asked),
        recorded,
        replayed,
        Objects.equals(blankAsNull(recorded.text()), blankAsNull(replayed.text()))
            && recorded.toolCalls().equals(replayed.toolCalls()),
        changes(input, again.input()));
  }

  /** What differs between the input the turn kept and the one built for the replay, in words. */
  static List<String> changes(TurnInput then, TurnInput now) {
    List<String> changes = new ArrayList<>();
    if (then.messages() != now.messages()) {
      changes.add(
          "the turn read "
              + then.messages()
              + " messages; "
              + now.messages()
              + " are stored up to its place now (one was stored late), and the replay gives"
              + " them all");
    }
    if (!then.tools().equals(now.tools())) {
      changes.add(
          "the turn was offered the tools " + then.tools() + "; the replay offers " + now.tools());
    } else if (!then.toolsDigest().equals(now.toolsDigest())) {
      changes.add(
          "the definitions of the turn's tools changed since (tool-runner's configuration or an"
              + " MCP server): the replay uses today's");
    }
    if (!Objects.equals(then.configVersion(), now.configVersion())) {
      changes.add(
          "the agents file or the model settings changed since the turn (configuration "
              + then.configVersion()
              + " then, "
              + now.configVersion()
              + " now): the replay uses today's");
    }
    return List.copyOf(changes);
  }

  private String modelOrDefault(@Nullable String name) {
    return name != null ? name : names.defaultName();
  }

  private static @Nullable String blankAsNull(@Nullable String text) {
    return text == null || text.isBlank() ? null : text;
  }

  private static ResponseStatusException refused(HttpStatus status, String reason) {
    return new ResponseStatusException(status, reason);
  }
}
