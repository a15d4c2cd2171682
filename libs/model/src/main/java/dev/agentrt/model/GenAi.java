package dev.agentrt.model;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The observations of an agent's work, named as the OpenTelemetry GenAI semantic conventions name
 * their spans: {@code invoke_agent {agent}} for a sub-agent's turn, {@code chat {model}} for a
 * model call, {@code execute_tool {tool}} for a tool call. Each is a span (in the trace of the
 * person's message that led to it) and a timer; the low-cardinality attributes are the timer's
 * tags. Prompts, answers and tool contents are never attributes.
 */
public final class GenAi {

  /** The chat: a person's whole conversation, as {@code gen_ai.conversation.id}. */
  public static final String CONVERSATION_ID = "gen_ai.conversation.id";

  private GenAi() {}

  /** One turn of a sub-agent of the agent, working on a task in the chat. */
  public static Observation invokeAgent(
      ObservationRegistry registry, String agent, String chatId, String taskId, String subAgentId) {
    return Observation.createNotStarted("agentrt.agent.turn", registry)
        .contextualName("invoke_agent " + agent)
        .lowCardinalityKeyValue("gen_ai.operation.name", "invoke_agent")
        .lowCardinalityKeyValue("gen_ai.agent.name", agent)
        .highCardinalityKeyValue(CONVERSATION_ID, chatId)
        .highCardinalityKeyValue("gen_ai.agent.id", subAgentId)
        .highCardinalityKeyValue("agentrt.task.id", taskId);
  }

  /**
   * A call of the model: {@code provider} as the GenAI conventions name it ({@code openai}, …),
   * {@code purpose} what the call is for (a decision, an agent's turn, a final answer).
   */
  public static Observation chat(
      ObservationRegistry registry, String provider, String model, String purpose) {
    return Observation.createNotStarted("gen_ai.client.operation", registry)
        .contextualName("chat " + model)
        .lowCardinalityKeyValue("gen_ai.operation.name", "chat")
        .lowCardinalityKeyValue("gen_ai.provider.name", provider)
        .lowCardinalityKeyValue("gen_ai.request.model", model)
        .lowCardinalityKeyValue("agentrt.purpose", purpose);
  }

  /** What the model answered, on its {@link #chat} observation. */
  public static void answered(
      Observation chat, int inputTokens, int outputTokens, @Nullable String finishReason) {
    chat.highCardinalityKeyValue("gen_ai.usage.input_tokens", Integer.toString(inputTokens))
        .highCardinalityKeyValue("gen_ai.usage.output_tokens", Integer.toString(outputTokens))
        .lowCardinalityKeyValue(
            "gen_ai.response.finish_reasons", finishReason == null ? "unknown" : finishReason);
  }

  /** A tool call the model asked for, in the chat. */
  public static Observation executeTool(
      ObservationRegistry registry, String tool, String toolCallId, String chatId) {
    return Observation.createNotStarted("agentrt.tool.call", registry)
        .contextualName("execute_tool " + tool)
        .lowCardinalityKeyValue("gen_ai.operation.name", "execute_tool")
        .lowCardinalityKeyValue("gen_ai.tool.name", tool)
        .highCardinalityKeyValue("gen_ai.tool.call.id", toolCallId)
        .highCardinalityKeyValue(CONVERSATION_ID, chatId);
  }

  /** How a tool call ended ({@code success}, or its error type), on its observation. */
  public static void toolOutcome(Observation call, String outcome) {
    call.lowCardinalityKeyValue("agentrt.outcome", outcome);
  }
}
