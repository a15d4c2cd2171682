package dev.agentrt.agentloop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.agents.TurnRequests;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.SubAgentMessage;
import dev.agentrt.store.TurnUsage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pending check and the turn's outcome, read from the messages alone: no broker, no database.
 */
class ConversationStateTest {

  private final List<SubAgentMessage> messages = new ArrayList<>();

  @Test
  void theInstructionAwaitsAModelTurn() {
    add("system", "You research.").add("user", "Research Kafka");

    ConversationState state = new ConversationState(messages);

    assertThat(state.awaitsModelTurn()).isTrue();
    assertThat(state.lastAnswer()).isEmpty();
    assertThat(state.lastSeq()).isEqualTo(2);
  }

  @Test
  void aTurnWaitsUntilEveryToolCallOfTheLastAnswerHasItsResult() {
    add("system", "You research.").add("user", "Research Kafka and MongoDB");
    answer(call("c1", "search_docs"), call("c2", "search_docs"));
    result("c1");

    ConversationState state = new ConversationState(messages);

    assertThat(state.pendingToolCalls()).extracting(RequestedToolCall::id).containsExactly("c2");
    assertThat(state.awaitsModelTurn()).isFalse();
    assertThat(state.awaitsMoreResults()).isTrue();

    result("c2");
    assertThat(new ConversationState(messages).awaitsModelTurn()).isTrue();
    assertThat(new ConversationState(messages).awaitsMoreResults()).isFalse();
  }

  @Test
  void resultsSinceTheLastAnswerAreTheToolMessagesAfterIt() {
    add("system", "You research.").add("user", "Research Kafka");
    assertThat(new ConversationState(messages).resultsSinceLastAnswer()).isFalse();

    answer(call("c1", "search_docs"));
    assertThat(new ConversationState(messages).resultsSinceLastAnswer()).isFalse();

    result("c1");
    assertThat(new ConversationState(messages).resultsSinceLastAnswer()).isTrue();

    add("assistant", "Kafka is a log.").add("user", "Also MongoDB");
    assertThat(new ConversationState(messages).resultsSinceLastAnswer())
        .as("a follow-up, no result")
        .isFalse();
  }

  @Test
  void anAnswerAsTheLastMessageIsAnOutcomeToApplyNotATurnToTake() {
    add("user", "Research Kafka").add("assistant", "Kafka is a log.");

    ConversationState state = new ConversationState(messages);

    assertThat(state.awaitsModelTurn()).isFalse();
    assertThat(state.lastAnswer()).isPresent();
    assertThat(TurnOutcome.of(state.lastAnswer().get()))
        .isEqualTo(new TurnOutcome.FinalAnswer("Kafka is a log."));
  }

  @Test
  void askUserIsAQuestionWithItsQuestionText() {
    add("user", "Research");
    answer(new RequestedToolCall("c1", "ask_user", "{\"question\":\"What should I research?\"}"));

    TurnOutcome outcome = TurnOutcome.of(new ConversationState(messages).lastAnswer().get());

    assertThat(outcome).isInstanceOf(TurnOutcome.Question.class);
    assertThat(((TurnOutcome.Question) outcome).question()).isEqualTo("What should I research?");
  }

  @Test
  void toolCallsAreAToolCallsOutcome() {
    add("user", "Research Kafka");
    answer(call("c1", "search_docs"));

    assertThat(TurnOutcome.of(new ConversationState(messages).lastAnswer().get()))
        .isInstanceOf(TurnOutcome.ToolCalls.class);
  }

  @Test
  void aFollowUpThatArrivedWhileToolsRanComesAfterTheirResultsInTheModelsContext() {
    add("system", "You research.").add("user", "Research Kafka");
    answer(call("c1", "search_docs"));
    add("user", "Also MongoDB");
    result("c1");

    List<String> roles =
        TurnRequests.modelContext(messages).stream().map(SubAgentMessage::role).toList();

    assertThat(roles).containsExactly("system", "user", "assistant", "tool", "user");
    assertThat(new ConversationState(messages).awaitsModelTurn()).isTrue();
  }

  @Test
  void theStepsOfARunAreTheAnswersSinceThePersonLastSpoke() {
    add("user", "Research Kafka");
    answer(call("c1", "search_docs"));
    result("c1");
    add("assistant", "Kafka is a log.").add("user", "Also MongoDB");
    answer(call("c2", "search_docs"));

    assertThat(new ConversationState(messages).stepsThisRun()).isEqualTo(1);
  }

  @Test
  void theRunsClockStartsWithThePersonsMessageAndRestartsWhenTheyAnswerAQuestion() {
    add("user", "Research");
    Instant started = messages.getLast().createdAt();
    answer(call("c1", "search_docs"));
    result("c1");
    assertThat(new ConversationState(messages).clockStartedAt()).contains(started);

    answer(new RequestedToolCall("c2", "ask_user", "{\"question\":\"Which?\"}"));
    message("tool", "Kafka", List.of(), "c2");

    ConversationState state = new ConversationState(messages);
    assertThat(state.clockStartedAt()).contains(messages.getLast().createdAt());
    assertThat(state.stepsThisRun()).as("an answer to its question is the same run").isEqualTo(2);
  }

  @Test
  void repeatsCountOnlyTheSameCallWithTheSameResultInARowAndWarningsStartNoNewRun() {
    add("user", "Research");
    answer(call("c1", "search_docs"));
    result("c1");
    answer(call("c2", "search_docs"));
    result("c2");
    assertThat(new ConversationState(messages).repeatedCalls()).isEqualTo(2);

    answer(new RequestedToolCall("c3", "search_docs", "{\"query\":\"other\"}"));
    result("c3");
    assertThat(new ConversationState(messages).repeatedCalls()).isEqualTo(1);

    answer(new RequestedToolCall("c4", "search_docs", "{\"query\":\"other\"}"));
    message("tool", "another result", List.of(), "c4");
    assertThat(new ConversationState(messages).repeatedCalls())
        .as("the same call with another result")
        .isEqualTo(1);

    add("user", ConversationState.STAGNATION_PROMPT + " …");
    ConversationState warned = new ConversationState(messages);
    assertThat(warned.repeatedCalls()).as("not after the warning").isZero();
    assertThat(warned.stepsThisRun()).as("the warning is not the person").isEqualTo(4);
  }

  @Test
  void tokensOfARunAreItsTurnsSinceThePersonSpoke() {
    add("user", "Research");
    turnWithTokens(100, 20);
    add("user", "Also MongoDB");
    turnWithTokens(30, 5);
    turnWithTokens(7, 3);

    assertThat(new ConversationState(messages).tokensThisRun()).isEqualTo(45);
  }

  private void turnWithTokens(int prompt, int completion) {
    messages.add(
        new SubAgentMessage(
            "m" + messages.size(),
            "sa-1",
            "task-1",
            "chat-1",
            messages.size() + 1,
            "assistant",
            "thinking",
            List.of(),
            null,
            null,
            new TurnUsage(prompt, completion),
            Instant.EPOCH,
            List.of()));
  }

  private ConversationStateTest add(String role, String content) {
    return message(role, content, List.of(), null);
  }

  private void answer(RequestedToolCall... calls) {
    message("assistant", null, List.of(calls), null);
  }

  private void result(String callId) {
    message("tool", "{\"results\":[]}", List.of(), callId);
  }

  private ConversationStateTest message(
      String role, String content, List<RequestedToolCall> calls, String toolCallId) {
    messages.add(
        new SubAgentMessage(
            "m" + messages.size(),
            "sa-1",
            "task-1",
            "chat-1",
            messages.size() + 1,
            role,
            content,
            calls,
            toolCallId,
            Instant.EPOCH.plusSeconds(messages.size()),
            List.of()));
    return this;
  }

  private static RequestedToolCall call(String id, String name) {
    return new RequestedToolCall(id, name, "{\"query\":\"x\"}");
  }
}
