package dev.agentrt.model.springai;

import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelMessage;
import dev.agentrt.model.ModelPort;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelRequest;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.model.ModelsProperties.Definition;
import dev.agentrt.model.ToolSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.anthropic.AnthropicChatOptions;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage.ToolResponse;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link ModelPort} over a Spring AI {@link ChatModel}: one call per turn, tool calls handed back
 * (never run here), failures classified by {@link ProviderFailures}.
 *
 * <p>The chat models are built from a {@link Definition}, not by Spring AI's auto-configuration,
 * and with the SDK's retries off ({@code maxRetries 0}): retries live in {@code ModelRetries}.
 * Spring AI 2.0 chat models never run tools themselves (that moved to {@code ChatClient}'s
 * advisors, so there is no {@code internalToolExecutionEnabled} to switch off); the tools are
 * passed as definitions whose callbacks refuse to run.
 */
public final class SpringAiModel implements ModelPort {

  /** Put in the system prompt, followed by the schema, where the provider has no native way. */
  static final String SCHEMA_INSTRUCTION =
      "Answer with one JSON value that satisfies the following JSON Schema, and nothing else:"
          + " no prose, no code fences.\n";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final String label;
  private final ChatModel chatModel;
  private final RequestOptions requestOptions;
  private final boolean schemaInSystemPrompt;
  private final Clock clock;

  /** The options of one call: the model's own plus the turn's tools (and native schema). */
  @FunctionalInterface
  interface RequestOptions {
    ChatOptions of(List<ToolCallback> tools, @Nullable String responseSchema);
  }

  private SpringAiModel(
      String label,
      ChatModel chatModel,
      RequestOptions requestOptions,
      boolean schemaInSystemPrompt,
      Clock clock) {
    this.label = label;
    this.chatModel = chatModel;
    this.requestOptions = requestOptions;
    this.schemaInSystemPrompt = schemaInSystemPrompt;
    this.clock = clock;
  }

  /**
   * A model behind an OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, LiteLLM,
   * …). A response schema is sent natively: {@code response_format: {type: json_schema,
   * json_schema: {name: response, schema, strict: false}}} — not strict, because strict mode
   * accepts only a subset of JSON Schema (no {@code oneOf}, every property required) and refuses
   * the whole request otherwise; callers validate the answer against the schema anyway.
   */
  public static SpringAiModel openAi(Definition definition) {
    OpenAiChatModel chatModel =
        OpenAiChatModel.builder()
            .options(
                OpenAiChatOptions.builder()
                    .baseUrl(definition.baseUrl())
                    // An empty key sends no Authorization header (Ollama, a local vLLM).
                    .apiKey(definition.apiKey() == null ? "" : definition.apiKey())
                    .model(definition.model())
                    .temperature(definition.temperature())
                    .maxTokens(definition.maxTokens())
                    .timeout(definition.timeout())
                    .maxRetries(0)
                    .build())
            .httpClientBuilderCustomizer(client -> client.interceptor(new NoDelaySockets()))
            .build();
    return new SpringAiModel(
        "openai model " + definition.model(),
        chatModel,
        (tools, responseSchema) ->
            chatModel
                .getOptions()
                .mutate()
                .toolCallbacks(tools)
                .extraBody(
                    responseSchema == null
                        ? null
                        : Map.of("response_format", responseFormat(responseSchema)))
                .build(),
        false,
        Clock.systemUTC());
  }

  /**
   * A model of Anthropic's messages API. A response schema goes into the system prompt ({@link
   * #SCHEMA_INSTRUCTION} and the schema): Anthropic's native structured output works for some
   * models only and accepts a subset of JSON Schema.
   */
  public static SpringAiModel anthropic(Definition definition) {
    AnthropicChatModel chatModel =
        AnthropicChatModel.builder()
            .options(
                AnthropicChatOptions.builder()
                    .baseUrl(definition.baseUrl())
                    .apiKey(definition.apiKey())
                    .model(definition.model())
                    .temperature(definition.temperature())
                    .maxTokens(definition.maxTokens())
                    .timeout(definition.timeout())
                    .maxRetries(0)
                    .build())
            .httpClientBuilderCustomizer(client -> client.interceptor(new NoDelaySockets()))
            .build();
    return new SpringAiModel(
        "anthropic model " + chatModel.getOptions().getModel(),
        chatModel,
        (tools, responseSchema) -> chatModel.getOptions().mutate().toolCallbacks(tools).build(),
        true,
        Clock.systemUTC());
  }

  /**
   * @throws ModelException classified as {@link ProviderFailures} says; a request this model cannot
   *     express (an unknown role, a schema that is not JSON) fails as not transient
   */
  @Override
  public ModelReply complete(ModelRequest request) {
    long started = System.nanoTime();
    ChatResponse response;
    try {
      response = chatModel.call(prompt(request));
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        // The call was cancelled: on a virtual thread the interrupt closed the socket, which the
        // SDK reports as an I/O failure; it must not be tried again.
        throw new ModelException(label + ": interrupted; the request was closed", false, e);
      }
      throw ProviderFailures.classify(label, e, clock);
    }
    return reply(response, Duration.ofNanos(System.nanoTime() - started).toMillis());
  }

  private Prompt prompt(ModelRequest request) {
    List<Message> messages = messages(request.messages());
    String responseSchema = request.responseSchema();
    if (responseSchema != null && schemaInSystemPrompt) {
      // Spring AI joins every system message into the one system prompt, in order.
      messages.add(new SystemMessage(SCHEMA_INSTRUCTION + responseSchema));
    }
    List<ToolCallback> tools = request.tools().stream().map(DeclaredTool::of).toList();
    return new Prompt(
        messages, requestOptions.of(tools, schemaInSystemPrompt ? null : responseSchema));
  }

  /**
   * Our messages as Spring AI's; consecutive tool results become one {@link ToolResponseMessage}
   * (Anthropic wants all results of one assistant turn in one message), each named by the tool call
   * it answers.
   */
  private static List<Message> messages(List<ModelMessage> messages) {
    List<Message> converted = new ArrayList<>();
    Map<String, String> toolNames = new HashMap<>();
    List<ToolResponse> results = new ArrayList<>();
    for (ModelMessage message : messages) {
      if (!message.role().equals("tool") && !results.isEmpty()) {
        converted.add(ToolResponseMessage.builder().responses(List.copyOf(results)).build());
        results.clear();
      }
      String text = message.content() == null ? "" : message.content();
      switch (message.role()) {
        case "system" -> converted.add(new SystemMessage(text));
        case "user" -> converted.add(new UserMessage(text));
        case "assistant" -> {
          message.toolCalls().forEach(call -> toolNames.put(call.id(), call.name()));
          converted.add(
              AssistantMessage.builder()
                  .content(message.content())
                  .toolCalls(
                      message.toolCalls().stream()
                          .map(
                              call ->
                                  new AssistantMessage.ToolCall(
                                      call.id(), "function", call.name(), call.arguments()))
                          .toList())
                  .build());
        }
        case "tool" -> {
          String callId = String.valueOf(message.toolCallId());
          results.add(new ToolResponse(callId, toolNames.getOrDefault(callId, ""), text));
        }
        default ->
            throw new IllegalArgumentException("unknown message role '" + message.role() + "'");
      }
    }
    if (!results.isEmpty()) {
      converted.add(ToolResponseMessage.builder().responses(List.copyOf(results)).build());
    }
    return converted;
  }

  private ModelReply reply(ChatResponse response, long latencyMs) {
    List<Generation> generations = response.getResults();
    if (generations.isEmpty()) {
      throw new ModelException(label + ": malformed response: no message in it", true);
    }
    // Anthropic's thinking blocks come as generations before the answer: the answer is the last.
    Generation answer = generations.getLast();
    AssistantMessage message = answer.getOutput();
    List<ModelToolCall> toolCalls =
        message.getToolCalls().stream()
            .map(call -> new ModelToolCall(call.id(), call.name(), call.arguments()))
            .toList();
    String content = message.getText();
    Usage usage = response.getMetadata().getUsage();
    return new ModelReply(
        content == null || content.isEmpty() ? null : content,
        toolCalls,
        new ModelReply.Usage(tokens(usage.getPromptTokens()), tokens(usage.getCompletionTokens())),
        finishReason(answer.getMetadata().getFinishReason(), !toolCalls.isEmpty()),
        latencyMs);
  }

  /**
   * The provider's finish reason in the chat-completions vocabulary: {@code stop}, {@code
   * tool_calls}, {@code length}, {@code content_filter}; others lower-cased as they came.
   */
  static String finishReason(@Nullable String reported, boolean hasToolCalls) {
    String reason = reported == null ? "" : reported.toLowerCase(Locale.ROOT);
    return switch (reason) {
      case "stop", "end_turn", "stop_sequence" -> "stop";
      case "tool_calls", "tool_use", "function_call" -> "tool_calls";
      case "length", "max_tokens" -> "length";
      case "content_filter", "refusal" -> "content_filter";
      case "" -> hasToolCalls ? "tool_calls" : "stop";
      default -> reason;
    };
  }

  private static Map<String, Object> responseFormat(String responseSchema) {
    Object schema = JSON.readValue(responseSchema, Object.class);
    return Map.of(
        "type",
        "json_schema",
        "json_schema",
        Map.of("name", "response", "schema", schema, "strict", false));
  }

  private static int tokens(@Nullable Integer count) {
    return count == null ? 0 : count;
  }

  /** A tool the model may call. It never runs here: tool calls go back to the agent loop. */
  private record DeclaredTool(ToolDefinition definition) implements ToolCallback {

    static ToolCallback of(ToolSpec tool) {
      return new DeclaredTool(
          ToolDefinition.builder()
              .name(tool.name())
              .description(tool.description())
              .inputSchema(tool.inputSchema())
              .build());
    }

    @Override
    public ToolDefinition getToolDefinition() {
      return definition;
    }

    @Override
    public String call(String toolInput) {
      throw new UnsupportedOperationException(
          "tool " + definition.name() + " runs in the tool-runner, not inside a model call");
    }
  }
}
