package dev.agentrt.agentloop;

import dev.agentrt.agents.AskUser;
import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.SubAgentMessage;
import java.util.List;

/** How a model turn ended, read from the assistant message that records it. */
sealed interface TurnOutcome {

  /** The model asked for tools; their results will wake the loop again. */
  record ToolCalls(List<RequestedToolCall> calls) implements TurnOutcome {}

  /** The model answered the task. */
  record FinalAnswer(String answer) implements TurnOutcome {}

  /** The model asked the person something through {@code ask_user}. */
  record Question(RequestedToolCall call, String question) implements TurnOutcome {}

  static TurnOutcome of(SubAgentMessage answer) {
    List<RequestedToolCall> calls = answer.toolCalls();
    for (RequestedToolCall call : calls) {
      if (ToolCatalog.ASK_USER.equals(call.name())) {
        return new Question(call, AskUser.question(call.arguments(), answer.content()));
      }
    }
    if (!calls.isEmpty()) {
      return new ToolCalls(calls);
    }
    return new FinalAnswer(answer.content() == null ? "" : answer.content());
  }
}
