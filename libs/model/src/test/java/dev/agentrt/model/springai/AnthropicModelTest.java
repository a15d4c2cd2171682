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

class AnthropicModelTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final FakeProvider provider = new FakeProvider();
  private final SpringAiModel model =
      SpringAiModel.anthropic(Conversations.anthropic(provider, TIMEOUT));

  @AfterEach
  void stop() {
    provider.close();
  }

  @Test
  void sendsToolUseAndToolResultBlocks() {
    provider.answer(Response.ok(message("{\"type\":\"text\",\"text\":\"Done.\"}", "end_turn")));

    model.complete(Conversations.afterTwoSearches());

    FakeProvider.Request request = provider.lastRequest();
    assertThat(request.path()).isEqualTo("/v1/messages");
    assertThat(request.header("x-api-key")).isEqualTo("test-key");
    JsonNode body = request.json();
    assertThat(body.path("model").asString()).isEqualTo("claude-test");
    assertThat(body.path("max_tokens").asInt()).isEqualTo(1024);
    assertThat(body.path("system").asString()).isEqualTo("You are a researcher.");
    JsonNode messages = body.path("messages");
    assertThat(messages.valueStream().map(m -> m.path("role").asString()))
        .containsExactly("user", "assistant", "user");
    JsonNode toolUses = messages.get(1).path("content");
    assertThat(toolUses.valueStream().map(b -> b.path("type").asString()))
        .containsExactly("tool_use", "tool_use");
    assertThat(toolUses.get(0).path("id").asString()).isEqualTo("call_1");
    assertThat(toolUses.get(1).path("input").path("query").asString()).isEqualTo("MongoDB");
    JsonNode results = messages.get(2).path("content");
    assertThat(results.valueStream().map(b -> b.path("type").asString()))
        .as("both results in one user message")
        .containsExactly("tool_result", "tool_result");
    assertThat(results.get(0).path("tool_use_id").asString()).isEqualTo("call_1");
    assertThat(results.get(1).path("tool_use_id").asString()).isEqualTo("call_2");
    assertThat(results.get(1).path("content").asString()).isEqualTo("mongodb.md");
    JsonNode tool = body.path("tools").get(0);
    assertThat(tool.path("name").asString()).isEqualTo("search_docs");
    assertThat(tool.path("input_schema").path("required").get(0).asString()).isEqualTo("query");
  }

  @Test
  void keepsTheTextOfAnAssistantMessageWithToolCalls() {
    provider.answer(Response.ok(message("{\"type\":\"text\",\"text\":\"Done.\"}", "end_turn")));

    model.complete(Conversations.afterTwoSearchesSaid("Let me search both."));

    JsonNode said = provider.lastRequest().json().path("messages").get(1).path("content");
    assertThat(said.valueStream().map(b -> b.path("type").asString()))
        .containsExactly("text", "tool_use", "tool_use");
    assertThat(said.get(0).path("text").asString()).isEqualTo("Let me search both.");
  }

  @Test
  void readsParallelToolUseWithUsage() {
    provider.answer(
        Response.ok(
            message(
                """
                {"type":"text","text":"Let me read both."},
                {"type":"tool_use","id":"toolu_1","name":"read_doc","input":{"path":"kafka.md"}},
                {"type":"tool_use","id":"toolu_2","name":"read_doc","input":{"path":"mongodb.md"}}""",
                "tool_use")));

    ModelReply reply = model.complete(Conversations.afterTwoSearches());

    assertThat(reply.content()).isEqualTo("Let me read both.");
    assertThat(reply.toolCalls())
        .containsExactly(
            new ModelToolCall("toolu_1", "read_doc", "{\"path\":\"kafka.md\"}"),
            new ModelToolCall("toolu_2", "read_doc", "{\"path\":\"mongodb.md\"}"));
    assertThat(reply.usage()).isEqualTo(new ModelReply.Usage(12, 7));
    assertThat(reply.finishReason()).isEqualTo("tool_calls");
  }

  @ParameterizedTest
  @CsvSource({
    "end_turn, stop",
    "stop_sequence, stop",
    "max_tokens, length",
    "refusal, content_filter"
  })
  void readsStopReasonAsFinishReason(String stopReason, String expected) {
    provider.answer(
        Response.ok(message("{\"type\":\"text\",\"text\":\"Kafka is a log.\"}", stopReason)));

    ModelReply reply = model.complete(Conversations.question("What is Kafka?"));

    assertThat(reply.content()).isEqualTo("Kafka is a log.");
    assertThat(reply.finishReason()).isEqualTo(expected);
  }

  @Test
  void putsTheResponseSchemaIntoTheSystemPrompt() {
    provider.answer(
        Response.ok(
            message(
                "{\"type\":\"text\",\"text\":\"{\\\"action\\\":\\\"answer\\\"}\"}", "end_turn")));

    model.complete(Conversations.decision());

    JsonNode body = provider.lastRequest().json();
    assertThat(body.path("system").asString())
        .isEqualTo(
            "Decide.\n\n" + SpringAiModel.SCHEMA_INSTRUCTION + Conversations.DECISION_SCHEMA);
    assertThat(body.has("output_config")).isFalse();
  }

  @Test
  void rateLimitIsTransientAndSaysHowLongToWait() {
    provider.answer(
        Response.status(429, error("rate_limit_error", "Number of requests exceeded"))
            .withHeader("Retry-After", "2"));

    ModelException failure = failure(model);

    assertThat(failure.transientFailure()).isTrue();
    assertThat(failure.retryAfter()).contains(Duration.ofSeconds(2));
    assertThat(failure.getMessage())
        .isEqualTo(
            "anthropic model claude-test: HTTP 429 rate limited (retry after 2 s):"
                + " Number of requests exceeded");
    assertThat(provider.requests()).as("the SDK does not retry on its own").hasSize(1);
  }

  @Test
  void overloadedIsTransient() {
    provider.answer(Response.status(529, error("overloaded_error", "Overloaded")));

    ModelException failure = failure(model);

    assertThat(failure.transientFailure()).isTrue();
    assertThat(failure.getMessage())
        .isEqualTo("anthropic model claude-test: HTTP 529 overloaded: Overloaded");
  }

  @Test
  void answerSlowerThanTheTimeoutIsATransientTimeout() {
    SpringAiModel impatient =
        SpringAiModel.anthropic(Conversations.anthropic(provider, Duration.ofMillis(200)));
    provider.answer(
        Response.ok(message("{\"type\":\"text\",\"text\":\"late\"}", "end_turn"))
            .heldUntilClosed());

    ModelException failure = failure(impatient);

    assertThat(failure.transientFailure()).isTrue();
    assertThat(failure.getMessage()).isEqualTo("anthropic model claude-test: timed out");
  }

  @Test
  void malformedBodyIsTransient() {
    provider.answer(Response.ok("{\"id\":\"msg_1\",\"content\":["));

    ModelException failure = failure(model);

    assertThat(failure.transientFailure()).isTrue();
    assertThat(failure.getMessage()).startsWith("anthropic model claude-test: malformed response");
  }

  @Test
  void unauthorizedIsNotTransient() {
    provider.answer(Response.status(401, error("authentication_error", "invalid x-api-key")));

    ModelException failure = failure(model);

    assertThat(failure.transientFailure()).isFalse();
    assertThat(failure.getMessage())
        .isEqualTo(
            "anthropic model claude-test: HTTP 401 unauthorized (check the api-key):"
                + " invalid x-api-key");
  }

  @Test
  void promptTooLongIsNotTransient() {
    provider.answer(
        Response.status(
            400,
            error("invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum")));

    ModelException failure = failure(model);

    assertThat(failure.transientFailure()).isFalse();
    assertThat(failure.getMessage())
        .isEqualTo(
            "anthropic model claude-test: HTTP 400 context length exceeded:"
                + " prompt is too long: 208310 tokens > 200000 maximum");
  }

  private static ModelException failure(SpringAiModel model) {
    return catchThrowableOfType(
        ModelException.class, () -> model.complete(Conversations.question("What is Kafka?")));
  }

  private static String error(String type, String message) {
    return """
        {"type":"error","error":{"type":"%s","message":"%s"}}"""
        .formatted(type, message);
  }

  private static String message(String contentBlocks, String stopReason) {
    return """
        {"id":"msg_1","type":"message","role":"assistant","model":"claude-test",
         "content":[%s],"stop_reason":"%s","stop_sequence":null,
         "usage":{"input_tokens":12,"output_tokens":7}}"""
        .formatted(contentBlocks, stopReason);
  }
}
