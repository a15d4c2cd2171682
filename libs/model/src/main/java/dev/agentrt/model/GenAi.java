package dev.agentrt.model;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The observations of an agent's work, named as the OpenTelemetry GenAI semantic conventions name
 * their spans: {@code invoke_agent {agent}} for a sub-agent's turn, {@code chat {model}} for a
 * model call, {@code execute_tool {tool}} for a tool call. Each is a span (in the trace of the
 * person's message that led to it) and a timer; the low-cardinality attributes are the timer's
 * tags. Prompts, answers and tool contents are attributes only when {@value #CAPTURE_CONTENT} is on
 * (off by default): then {@link #input}, {@link #output} and {@link #toolContent} add them as the
 * conventions' opt-in attributes, as JSON text.
 */
public final class GenAi {

  /** The chat: a person's whole conversation, as {@code gen_ai.conversation.id}. */
  public static final String CONVERSATION_ID = "gen_ai.conversation.id";

  /**
   * The property ({@code AGENTRT_TRACING_CAPTURE_CONTENT}) that puts prompts, answers and tool
   * contents on the spans; false unless set.
   */
  public static final String CAPTURE_CONTENT = "agentrt.tracing.capture-content";

  private static final JsonMapper JSON = JsonMapper.shared();

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

  /**
   * What the model is given, on its {@link #chat} observation: {@code gen_ai.input.messages}, the
   * messages as the conventions shape them ({@code [{role, parts: [{type: text, content} | {type:
   * tool_call, id, name, arguments} | {type: tool_call_response, id, response}]}]}), and {@code
   * gen_ai.tool.definitions}, the tools' names.
   */
  public static void input(Observation chat, ModelRequest request) {
    ArrayNode messages = JSON.createArrayNode();
    for (ModelMessage m : request.messages()) {
      ObjectNode message = messages.addObject().put("role", m.role());
      ArrayNode parts = message.putArray("parts");
      if ("tool".equals(m.role())) {
        parts
            .addObject()
            .put("type", "tool_call_response")
            .put("id", m.toolCallId())
            .put("response", m.content());
      } else {
        addParts(parts, m.content(), m.toolCalls());
      }
    }
    ArrayNode tools = JSON.createArrayNode();
    request.tools().forEach(t -> tools.addObject().put("type", "function").put("name", t.name()));
    chat.highCardinalityKeyValue("gen_ai.input.messages", messages.toString())
        .highCardinalityKeyValue("gen_ai.tool.definitions", tools.toString());
  }

  /**
   * What the model answered, on its {@link #chat} observation: {@code gen_ai.output.messages}
   * ({@code [{role: assistant, parts, finish_reason}]}).
   */
  public static void output(Observation chat, ModelReply reply) {
    ArrayNode messages = JSON.createArrayNode();
    ObjectNode message = messages.addObject().put("role", "assistant");
    addParts(message.putArray("parts"), reply.content(), reply.toolCalls());
    message.put("finish_reason", reply.finishReason());
    chat.highCardinalityKeyValue("gen_ai.output.messages", messages.toString());
  }

  private static void addParts(
      ArrayNode parts, @Nullable String content, List<ModelToolCall> toolCalls) {
    if (content != null && !content.isEmpty()) {
      parts.addObject().put("type", "text").put("content", content);
    }
    for (ModelToolCall call : toolCalls) {
      parts
          .addObject()
          .put("type", "tool_call")
          .put("id", call.id())
          .put("name", call.name())
          .put("arguments", call.arguments());
    }
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

  /**
   * A tool call's contents, on its {@link #executeTool} observation: {@code
   * gen_ai.tool.call.arguments} and {@code gen_ai.tool.call.result}, as JSON text.
   */
  public static void toolContent(Observation call, String arguments, String result) {
    call.highCardinalityKeyValue("gen_ai.tool.call.arguments", arguments)
        .highCardinalityKeyValue("gen_ai.tool.call.result", result);
  }

  /** How a tool call ended ({@code success}, or its error type), on its observation. */
  public static void toolOutcome(Observation call, String outcome) {
    call.lowCardinalityKeyValue("agentrt.outcome", outcome);
  }
}
