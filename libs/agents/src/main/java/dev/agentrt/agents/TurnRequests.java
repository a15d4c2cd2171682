package dev.agentrt.agents;

import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.model.ToolSpec;
import dev.agentrt.store.ConfigVersion;
import dev.agentrt.store.Digest;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.TurnInput;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The model request of a sub-agent's turn, built from what is stored: the conversation as the turn
 * read it, the agent's tools and output schema, the model. The agent loop builds it to take a turn
 * and keeps its {@link TurnInput} on the answer; the orchestrator builds it again from that input
 * to replay the turn, and the two builds are the same code.
 */
public final class TurnRequests {

  private final AgentCatalog agents;
  private final ToolDefinitions tools;
  private final ConfigVersion config;

  public TurnRequests(AgentCatalog agents, ToolDefinitions tools, ConfigVersion config) {
    this.agents = agents;
    this.tools = tools;
    this.config = config;
  }

  /** A turn's request, and what its answer keeps of it. */
  public record Turn(ModelRequest request, TurnInput input) {}

  /**
   * The turn of the agent that answers the conversation as read.
   *
   * @param conversation the sub-agent's messages in {@code seq} order, all the turn answers
   * @param model the model the turn asks (null: the default model)
   * @throws IllegalArgumentException when the agent delegates to an agent that is not declared
   */
  public Turn of(
      AgentDefinition agent, List<SubAgentMessage> conversation, @Nullable String model) {
    List<ToolSpec> offered =
        tools.forAgent(agent, agent.delegates().stream().map(agents::get).toList());
    ModelRequest request =
        new ModelRequest(
            ModelRequest.Purpose.AGENT_TURN,
            modelContext(conversation).stream().map(TurnRequests::toModel).toList(),
            offered,
            agent.outputSchema(),
            model);
    TurnInput input =
        new TurnInput(
            conversation.isEmpty() ? 0 : conversation.getLast().seq(),
            conversation.size(),
            offered.stream().map(ToolSpec::name).toList(),
            digest(offered),
            config.value());
    return new Turn(request, input);
  }

  /**
   * The messages in an order every provider accepts: the results of an assistant message's tool
   * calls right after it. A message that arrived while those calls were running (a follow-up from
   * the person) comes after their results.
   */
  public static List<SubAgentMessage> modelContext(List<SubAgentMessage> messages) {
    List<SubAgentMessage> ordered = new ArrayList<>();
    List<SubAgentMessage> arrivedMeanwhile = new ArrayList<>();
    Set<String> running = new HashSet<>();
    for (SubAgentMessage m : messages) {
      if (SubAgentMessage.TOOL.equals(m.role())) {
        ordered.add(m);
        running.remove(m.toolCallId());
        if (running.isEmpty()) {
          ordered.addAll(arrivedMeanwhile);
          arrivedMeanwhile.clear();
        }
      } else if (!running.isEmpty()) {
        arrivedMeanwhile.add(m);
      } else {
        ordered.add(m);
        if (SubAgentMessage.ASSISTANT.equals(m.role())) {
          m.toolCalls().forEach(call -> running.add(call.id()));
        }
      }
    }
    ordered.addAll(arrivedMeanwhile);
    return ordered;
  }

  /** The digest of tool definitions: any change of a name, a description or a schema shows. */
  static String digest(List<ToolSpec> specs) {
    return Digest.of(
        specs.stream()
            .flatMap(
                s ->
                    Stream.of(
                        s.name(), String.valueOf(s.description()), String.valueOf(s.inputSchema())))
            .toArray(String[]::new));
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
}
