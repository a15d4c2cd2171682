package dev.agentrt.finalizer;

import dev.agentrt.store.Ids;
import dev.agentrt.store.Plan;
import dev.agentrt.store.PlanNode;
import dev.agentrt.store.PlanNodeStatus;
import dev.agentrt.store.PlanStatus;
import dev.agentrt.store.Task;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What an ended plan's one answer is written from. A plan that succeeded with one sink (a node no
 * other depends on) is answered from that node's result, as its task would be; otherwise the answer
 * is a synthesis: the sinks' results that came, and what was not done and why.
 */
final class PlanBrief {

  static final String PURPOSE = "plan-answer";
  static final String AGENT = "plan";

  private PlanBrief() {}

  /** The id of the plan's answer: one per plan. */
  static String answerId(String planId) {
    return Ids.derived(planId, PURPOSE);
  }

  /**
   * @param sinkTask reads the task of a node the answer is linked to (null when it is not stored),
   *     whose usage the answer adds to
   */
  static FinalAnswers.Brief of(Plan plan, Function<String, @Nullable Task> sinkTask) {
    List<PlanNode> sinks = plan.sinks();
    if (plan.status() == PlanStatus.success && sinks.size() == 1) {
      PlanNode sink = sinks.getFirst();
      String result = sink.result() == null ? "" : sink.result().strip();
      return new FinalAnswers.Brief(
          answerId(plan.id()),
          plan.chatId(),
          sink.taskId(),
          FinalAnswers.countOnChat(sinkTask.apply(sink.taskId())),
          plan.model(),
          head(sink.agent(), plan) + "Outcome: success\nResult: " + result,
          result);
    }
    String done =
        sinks.stream()
            .filter(n -> n.status() == PlanNodeStatus.success)
            .map(n -> "## " + n.id() + " (" + n.agent() + ")\n\n" + strip(n.result()))
            .collect(Collectors.joining("\n\n"));
    String notDone =
        plan.nodes().stream()
            .filter(n -> n.status() != PlanNodeStatus.success)
            .map(n -> "- " + n.id() + " (" + n.agent() + "): " + whyNotDone(n))
            .collect(Collectors.joining("\n"));
    String outcome = head(AGENT, plan) + "Outcome: " + plan.status() + "\n";
    if (done.isEmpty()) {
      String error = "nothing it was for was done.\n" + notDone;
      return new FinalAnswers.Brief(
          answerId(plan.id()),
          plan.chatId(),
          null,
          true,
          plan.model(),
          outcome + "Error: " + error,
          "The plan for \"" + plan.request() + "\" could not finish: " + error);
    }
    String result = notDone.isEmpty() ? done : done + "\n\nNot done:\n" + notDone;
    return new FinalAnswers.Brief(
        answerId(plan.id()),
        plan.chatId(),
        null,
        true,
        plan.model(),
        outcome + "Result: " + result,
        result);
  }

  /** "failed: <error>", "cancelled: …", or for a skipped node the node it waited for. */
  private static String whyNotDone(PlanNode node) {
    return node.status() == PlanNodeStatus.skipped
        ? node.error()
        : node.status() + ": " + node.error();
  }

  private static String head(String agent, Plan plan) {
    return "Agent: " + agent + "\nInstruction: " + plan.request() + "\n";
  }

  private static String strip(String text) {
    return text == null ? "" : text.strip();
  }
}
