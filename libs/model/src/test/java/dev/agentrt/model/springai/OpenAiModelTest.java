package dev.agentrt.model.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.agentrt.model.ModelException;
import dev.agentrt.model.ModelReply;
import dev.agentrt.model.ModelToolCall;
import dev.agentrt.model.springai.FakeProvider.Response;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class OpenAiModelTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final FakeProvider provider = new FakeProvider();
  private final SpringAiModel model =
      SpringAiModel.openAi(Conversations.openAi(provider, "test-key", TIMEOUT));

  @AfterEach
  void stop() {
    provider.close();
  }

  @Test
  void sendsMessagesToolsAndToolResultsInTheChatCompletionsShape() {
    provider.answer(Response.ok(completion("null", "\"stop\"", "")));

    model.complete(Conversations.afterTwoSearches());

    FakeProvider.Request request = provider.lastRequest();
    assertThat(request.path()).isEqualTo("/v1/chat/completions");
    assertThat(request.header("Authorization")).isEqualTo("Bearer test-key");
    JsonNode body = request.json();
    assertThat(body.path("model").asString()).isEqualTo("gpt-test");
    assertThat(body.path("temperature").asDouble()).isEqualTo(0.2);
    assertThat(body.path("max_tokens").asInt()).isEqualTo(512);
    JsonNode messages = body.path("messages");
    assertThat(messages.valueStream().map(m -> m.path("role").asString()))
        .containsExactly("system", "user", "assistant", "tool", "tool");
    assertThat(messages.get(0).path("content").asString()).isEqualTo("You are a researcher.");
    JsonNode toolCalls = messages.get(2).path("tool_calls");
    assertThat(toolCalls.valueStream().map(c -> c.path("id").asString()))
        .containsExactly("call_1", "call_2");
    assertThat(toolCalls.get(1).path("function").path("name").asString()).isEqualTo("search_docs");
    assertThat(toolCalls.get(1).path("function").path("arguments").asString())
        .isEqualTo("{\"query\":\"MongoDB\"}");
    assertThat(messages.get(3).path("tool_call_id").asString()).isEqualTo("call_1");
    assertThat(messages.get(3).path("content").asString()).isEqualTo("kafka.md");
    assertThat(messages.get(4).path("tool_call_id").asString()).isEqualTo("call_2");
    JsonNode function = body.path("tools").get(0).path("function");
    assertThat(function.path("name").asString()).isEqualTo("search_docs");
    assertThat(function.path("description").asString()).isEqualTo("Searches the documents.");
    assertThat(function.path("parameters"))
        .as("the tool's schema as given, no keyword added to it")
        .isEqualTo(JsonMapper.builder().build().readTree(Conversations.SEARCH_DOCS.inputSchema()));
    assertThat(function.path("strict").asBoolean(false)).as("not strict unless asked").isFalse();
    assertThat(body.has("response_format")).isFalse();
  }

  @Test
  void readsParallelToolCallsWithUsage() {
    provider.answer(
        Response.ok(
            completion(
                "null",
                "\"tool_calls\"",
                """
                ,"tool_calls":[
                  {"id":"call_a","type":"function",
                   "function":{"name":"read_doc","arguments":"{\\"path\\":\\"kafka.md\\"}"}},
                  {"id":"call_b","type":"function",
                   "function":{"name":"read_doc","arguments":"{\\"path\\":\\"mongodb.md\\"}"}}]""")));

    ModelReply reply = model.complete(Conversations.afterTwoSearches());

    assertThat(reply.content()).isNull();
    assertThat(reply.toolCalls())
        .containsExactly(
            new ModelToolCall("call_a", "read_doc", "{\"path\":\"kafka.md\"}"),
            new ModelToolCall("call_b", "read_doc", "{\"path\":\"mongodb.md\"}"));
    assertThat(reply.usage()).isEqualTo(new ModelReply.Usage(12, 7));
    assertThat(reply.finishReason()).isEqualTo("tool_calls");
    assertThat(reply.latencyMs()).isNotNegative();
  }

  @ParameterizedTest
  @CsvSource({"stop, stop", "length, length", "content_filter, content_filter"})
  void readsContentAndFinishReason(String sent, String expected) {
    provider.answer(Response.ok(completion("\"Kafka is a log.\"", "\"" + sent + "\"", "")));

    ModelReply reply = model.complete(Conversations.question("What is Kafka?"));

    assertThat(reply.content()).isEqualTo("Kafka is a log.");
    assertThat(reply.toolCalls()).isEmpty();
    assertThat(reply.finishReason()).isEqualTo(expected);
  }

  @Test
  void sendsTheResponseSchemaAsResponseFormat() {
    provider.answer(Response.ok(completion("\"{\\\"action\\\":\\\"answer\\\"}\"", "\"stop\"", "")));

    ModelReply reply = model.complete(Conversations.decision());

    JsonNode format = provider.lastRequest().json().path("response_format");
    assertThat(format.path("type").asString()).isEqualTo("json_schema");
    assertThat(format.path("json_schema").path("name").asString()).isEqualTo("response");
    assertThat(format.path("json_schema").path("strict").asBoolean(true)).isFalse();
    assertThat(format.path("json_schema").path("schema").path("required").get(0).asString())
        .isEqualTo("action");
    assertThat(reply.content()).isEqualTo("{\"action\":\"answer\"}");
  }

  @Test
  void sendsNoAuthorizationWithoutAnApiKey() {
    SpringAiModel keyless = SpringAiModel.openAi(Conversations.openAi(provider, null, TIMEOUT));
    provider.answer(Response.ok(completion("\"hi\"", "\"stop\"", "")));

    keyless.complete(Conversations.question("hi"));

    assertThat(provider.lastRequest().header("Authorization")).isNull();
  }

  @Test
  void rateLimitIsTransientAndSaysHowLongToWait() {
    provider.answer(
        Response.status(429, error("Rate limit reached")).withHeader("Retry-After", "2"));

    ModelException failure = failure(model);

    assertThat(failure.transientFailure()).isTrue();
    assertThat(failure.retryAfter()).contains(Duration.ofSeconds(2));
    assertThat(failure.getMessage())
        .isEqualTo(
            "openai model gpt-test: HTTP 429 rate limited (retry after 2 s): Rate limit reached");
    assertThat(provider.requests()).as("the SDK does not retry on its own").hasSize(1);
  }

  @Test
  void serverErrorIsTransient() {
    provider.answer(Response.status(500, error("The server had an error")));

    ModelException failure = failure(model);

    assertThat(failure.transientFailure()).isTrue();
    assertThat(failure.retryAfter()).isEmpty();
    assertThat(failure.getMessage()).startsWith("openai model gpt-test: HTTP 500 server error");
    assertThat(provider.requests()).hasSize(1);
  }

  @Test
  void answerSlowerThanTheTimeoutIsATransientTimeout() {
    SpringAiModel impatient =
        SpringAiModel.openAi(Conversations.openAi(provider, "k", Duration.ofMillis(200)));
    provider.answer(Response.ok(completion("\"late\"", "\"stop\"", "")).heldUntilClosed());

    ModelException failure = failure(impatient);

    assertThat(failure.transientFailure()).isTrue();
    assertThat(failure.getMessage()).isEqualTo("openai model gpt-test: timed out");
  }

  @Test
  void malformedBodyIsTransient() {
    provider.answer(Response.ok("{\"id\":\"chatcmpl-1\",\"choices\":[{"));

    ModelException failure = failure(model);

    assertThat(failure.transientFailure()).isTrue();
    assertThat(failure.getMessage()).startsWith("openai model gpt-test: malformed response");
  }

  @Test
  void refusedConnectionIsTransient() {
    provider.close();

    ModelException failure = failure(model);

    assertThat(failure.transientFailure()).isTrue();
    assertThat(failure.getMessage()).startsWith("openai model gpt-test: connection failed");
  }

  @Test
  void unauthorizedIsNotTransient() {
    provider.answer(Response.status(401, error("Incorrect API key provided")));

    ModelException failure = failure(model);

    assertThat(failure.transientFailure()).isFalse();
    assertThat(failure.getMessage())
        .isEqualTo(
            "openai model gpt-test: HTTP 401 unauthorized (check the api-key):"
                + " Incorrect API key provided");
  }

  @Test
  void exceededContextLengthIsNotTransient() {
    provider.answer(
        Response.status(
            400,
            """
            {"error":{"message":"This model's maximum context length is 8192 tokens.",
             "type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"""));

    ModelException failure = failure(model);

    assertThat(failure.transientFailure()).isFalse();
    assertThat(failure.getMessage())
        .startsWith("openai model gpt-test: HTTP 400 context length exceeded");
  }

  private static ModelException failure(SpringAiModel model) {
    return catchThrowableOfType(
        ModelException.class, () -> model.complete(Conversations.question("What is Kafka?")));
  }

  private static String error(String message) {
    return "{\"error\":{\"message\":\"" + message + "\",\"type\":\"error\"}}";
  }

  /** A chat completion with one choice; {@code toolCalls} is empty or starts with a comma. */
  private static String completion(String content, String finishReason, String toolCalls) {
    return """
        {"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-test",
         "choices":[{"index":0,"finish_reason":%s,
           "message":{"role":"assistant","content":%s%s}}],
         "usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}"""
        .formatted(finishReason, content, toolCalls);
  }
}
