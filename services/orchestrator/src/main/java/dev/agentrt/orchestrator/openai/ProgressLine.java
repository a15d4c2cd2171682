package dev.agentrt.orchestrator.openai;

import dev.agentrt.store.RunEvent;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A run event as one line of progress for a client that shows reasoning ({@code
 * delta.reasoning_content}); chat messages are not progress (the reply comes as the content).
 */
final class ProgressLine {

  private ProgressLine() {}

  static Optional<String> of(RunEvent event) {
    Map<String, Object> d = event.data();
    String who = event.agent() == null ? "the agent" : event.agent();
    String line =
        switch (event.type()) {
          case RunEvent.HANDOFF ->
              (Boolean.TRUE.equals(d.get("reactivated")) ? "Back to the " : "Handing over to the ")
                  + d.get("agent")
                  + ": "
                  + d.get("task");
          case RunEvent.STEP_START -> "The " + who + " thinks (step " + d.get("step") + ")…";
          case RunEvent.STEP_END -> stepEnd(who, d);
          case RunEvent.TOOL_CALL_START -> "Running " + d.get("tool") + " " + d.get("arguments");
          case RunEvent.TOOL_CALL_RESULT ->
              d.get("tool")
                  + ("failed".equals(d.get("status"))
                      ? " failed (" + d.get("errorType") + ")"
                      : " done")
                  + " in "
                  + d.get("latencyMs")
                  + " ms";
          case RunEvent.QUESTION -> "The " + who + " asks: " + d.get("question");
          case RunEvent.USER_ANSWER -> "Your answer goes to the " + who + ".";
          case RunEvent.APPROVAL_REQUESTED ->
              "The " + who + " asks to run " + d.get("tool") + " " + d.get("arguments");
          case RunEvent.APPROVAL_DECIDED ->
              d.get("tool")
                  + (Boolean.TRUE.equals(d.get("approved"))
                      ? " approved by " + d.get("by")
                      : " rejected by " + d.get("by") + ": " + d.get("reason"));
          case RunEvent.BUDGET_WARNING ->
              "Warning: " + d.get("used") + " of " + d.get("max") + " " + d.get("limit") + " used";
          case RunEvent.ERROR -> "Error (" + d.get("reason") + "): " + d.get("message");
          case RunEvent.RUN_END -> "The " + who + " " + d.get("status") + ".";
          case RunEvent.DELEGATION_START ->
              "The " + who + " asks the " + d.get("agent") + ": " + d.get("message");
          case RunEvent.DELEGATION_END ->
              "The " + d.get("agent") + " answered (" + d.get("status") + ").";
          case RunEvent.PLAN_CREATED -> "A plan of " + size(d.get("nodes")) + " tasks.";
          case RunEvent.PLAN_NODE_STARTED -> "Task " + d.get("node") + " starts: the " + who + ".";
          case RunEvent.PLAN_NODE_ENDED -> "Task " + d.get("node") + " " + d.get("status") + ".";
          case RunEvent.PLAN_NODE_SKIPPED -> "Task " + d.get("node") + " " + d.get("reason") + ".";
          case RunEvent.PLAN_END -> "The plan ended: " + d.get("status") + ".";
          default -> null;
        };
    return Optional.ofNullable(line).map(l -> l + "\n");
  }

  private static int size(Object list) {
    return list instanceof List<?> items ? items.size() : 0;
  }

  private static String stepEnd(String who, Map<String, Object> d) {
    Object calls = d.get("toolCalls");
    String next =
        calls instanceof List<?> names && !names.isEmpty()
            ? "calls " + String.join(", ", names.stream().map(String::valueOf).toList())
            : "answers";
    return "The "
        + who
        + " "
        + next
        + " ("
        + d.get("inputTokens")
        + "+"
        + d.get("outputTokens")
        + " tokens, "
        + d.get("latencyMs")
        + " ms)";
  }
}
