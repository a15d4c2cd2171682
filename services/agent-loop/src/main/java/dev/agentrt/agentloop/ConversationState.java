package dev.agentrt.agentloop;

import dev.agentrt.agents.ToolCatalog;
import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.SubAgentMessage;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What a sub-agent's conversation says about the next step, read from the messages alone (DESIGN
 * invariant 3): whether its last answer still has an outcome to apply, whether tool calls are still
 * pending, whether a message awaits a model turn.
 */
record ConversationState(List<SubAgentMessage> messages) {

  /** How a repair request starts: the loop's own user message, not the person's. */
  static final String REPAIR_PROMPT =
      "Your final answer does not satisfy the required output schema.";

  /** How the warning about repeated tool calls starts: the loop's own user message. */
  static final String STAGNATION_PROMPT = "You are repeating yourself:";

  /** The last message, when it is the model's: its outcome may still need applying. */
  Optional<SubAgentMessage> lastAnswer() {
    return last().filter(m -> SubAgentMessage.ASSISTANT.equals(m.role()));
  }

  /** Tool calls of the last assistant message that have no tool message yet. */
  List<RequestedToolCall> pendingToolCalls() {
    int answer = lastIndexOf(SubAgentMessage.ASSISTANT);
    if (answer < 0) {
      return List.of();
    }
    Set<String> answered =
        messages.subList(answer + 1, messages.size()).stream()
            .filter(m -> SubAgentMessage.TOOL.equals(m.role()))
            .map(SubAgentMessage::toolCallId)
            .collect(Collectors.toSet());
    return messages.get(answer).toolCalls().stream()
        .filter(call -> !answered.contains(call.id()))
        .toList();
  }

  /** The sub-agent started a child task at some turn ({@code message_agent}). */
  boolean delegated() {
    return messages.stream()
        .flatMap(m -> m.toolCalls().stream())
        .anyMatch(Delegations::isDelegation);
  }

  /**
   * The last message is a tool's result and calls of the last answer still have none: nothing to do
   * until they do.
   */
  boolean awaitsMoreResults() {
    return last().filter(m -> SubAgentMessage.TOOL.equals(m.role())).isPresent()
        && !pendingToolCalls().isEmpty();
  }

  /**
   * The ids of the messages after the last answer (all of them when there is none): what a turn
   * taken now answers that no turn answered before.
   */
  Set<String> idsSinceLastAnswer() {
    return messages.subList(lastIndexOf(SubAgentMessage.ASSISTANT) + 1, messages.size()).stream()
        .map(SubAgentMessage::id)
        .collect(Collectors.toSet());
  }

  /**
   * Whether a tool's result came after the last answer: others (tool-runner, the finalizer for a
   * child task's) recorded it in the chat's ledger since that answer's turn.
   */
  boolean resultsSinceLastAnswer() {
    return messages.subList(lastIndexOf(SubAgentMessage.ASSISTANT) + 1, messages.size()).stream()
        .anyMatch(m -> SubAgentMessage.TOOL.equals(m.role()));
  }

  /** A call of the last answer still waits for a person's approval (it has no result yet). */
  boolean awaitsApproval() {
    return pendingToolCalls().stream().anyMatch(RequestedToolCall::gated);
  }

  /** The last answer had calls that waited for a person's approval, whatever was decided. */
  boolean hadApprovals() {
    int answer = lastIndexOf(SubAgentMessage.ASSISTANT);
    return answer >= 0
        && messages.get(answer).toolCalls().stream().anyMatch(RequestedToolCall::gated);
  }

  /** A user or tool message waits for the model, and no tool call is still running. */
  boolean awaitsModelTurn() {
    return last()
            .map(
                m -> SubAgentMessage.USER.equals(m.role()) || SubAgentMessage.TOOL.equals(m.role()))
            .orElse(false)
        && pendingToolCalls().isEmpty();
  }

  /**
   * The model turns the sub-agent took, in every run: the next is turn {@code turns() + 1}, as the
   * task's turns are numbered ({@code /api/tasks/{taskId}/turns/{n}}).
   */
  int turns() {
    return (int) messages.stream().filter(m -> SubAgentMessage.ASSISTANT.equals(m.role())).count();
  }

  /** The position of the newest message: a turn answers everything up to it. */
  long lastSeq() {
    return last().map(SubAgentMessage::seq).orElse(0L);
  }

  /**
   * Model turns taken since the person last spoke to the agent: the steps of this run, repair turns
   * included.
   */
  int stepsThisRun() {
    return (int)
        sinceThePersonSpoke().filter(m -> SubAgentMessage.ASSISTANT.equals(m.role())).count();
  }

  /** Repairs of a final answer asked for in this run. */
  int repairsThisRun() {
    return (int) sinceThePersonSpoke().filter(m -> isLoopsOwn(m, REPAIR_PROMPT)).count();
  }

  /** Prompt and completion tokens of this run's model turns, repair turns included. */
  long tokensThisRun() {
    return sinceThePersonSpoke()
        .filter(m -> SubAgentMessage.ASSISTANT.equals(m.role()) && m.usage() != null)
        .mapToLong(m -> m.usage().promptTokens() + m.usage().completionTokens())
        .sum();
  }

  /** The position of the message that started this run (0 when there is none). */
  long runStartSeq() {
    return sinceThePersonSpoke().findFirst().map(SubAgentMessage::seq).orElse(0L);
  }

  /**
   * When the run's clock started: the person's message that started the run, or their latest answer
   * to one of its questions, or the latest result of a call that waited for their approval (time
   * spent waiting for the person does not count).
   */
  Optional<Instant> clockStartedAt() {
    Set<String> questions = new HashSet<>();
    Instant started = null;
    for (SubAgentMessage m : sinceThePersonSpoke().toList()) {
      if (started == null) {
        started = m.createdAt();
      }
      if (SubAgentMessage.ASSISTANT.equals(m.role())) {
        m.toolCalls().stream()
            .filter(c -> ToolCatalog.ASK_USER.equals(c.name()) || c.gated())
            .forEach(c -> questions.add(c.id()));
      } else if (SubAgentMessage.TOOL.equals(m.role()) && questions.contains(m.toolCallId())) {
        started = m.createdAt();
      }
    }
    return Optional.ofNullable(started);
  }

  /**
   * How many of this run's latest tool calls, in a row, were the same call (name and arguments)
   * with the same result; 0 when the last message is not a tool result.
   */
  int repeatedCalls() {
    if (last().filter(m -> SubAgentMessage.TOOL.equals(m.role())).isEmpty()) {
      return 0;
    }
    List<SubAgentMessage> run = sinceThePersonSpoke().toList();
    Map<String, String> results = new HashMap<>();
    for (SubAgentMessage m : run) {
      if (SubAgentMessage.TOOL.equals(m.role()) && m.toolCallId() != null) {
        results.put(m.toolCallId(), String.valueOf(m.content()));
      }
    }
    // From the newest call with a result back, while each is the newest one again: compared field
    // by field, a result (often kilobytes) is never copied.
    @Nullable RequestedToolCall newest = null;
    @Nullable String newestResult = null;
    int streak = 0;
    for (int i = run.size() - 1; i >= 0; i--) {
      List<RequestedToolCall> calls = run.get(i).toolCalls();
      for (int j = calls.size() - 1; j >= 0; j--) {
        RequestedToolCall call = calls.get(j);
        String result = results.get(call.id());
        if (result == null) {
          continue;
        }
        if (newest == null) {
          newest = call;
          newestResult = result;
        } else if (!call.name().equals(newest.name())
            || !Objects.equals(call.arguments(), newest.arguments())
            || !result.equals(newestResult)) {
          return streak;
        }
        streak++;
      }
    }
    return streak;
  }

  /** What the run did so far, for the person when it is stopped: turns, tool calls, last words. */
  String progress() {
    List<SubAgentMessage> run = sinceThePersonSpoke().toList();
    List<SubAgentMessage> turns =
        run.stream().filter(m -> SubAgentMessage.ASSISTANT.equals(m.role())).toList();
    Map<String, Long> tools =
        turns.stream()
            .flatMap(m -> m.toolCalls().stream())
            .collect(
                Collectors.groupingBy(
                    RequestedToolCall::name, java.util.TreeMap::new, Collectors.counting()));
    StringBuilder done =
        new StringBuilder("Done so far: ").append(turns.size()).append(" model turn(s)");
    long calls = tools.values().stream().mapToLong(Long::longValue).sum();
    done.append(", ").append(calls).append(" tool call(s)");
    if (!tools.isEmpty()) {
      done.append(" (")
          .append(
              tools.entrySet().stream()
                  .map(e -> e.getKey() + " ×" + e.getValue())
                  .collect(Collectors.joining(", ")))
          .append(")");
    }
    done.append(".");
    turns.stream()
        .map(SubAgentMessage::content)
        .filter(c -> c != null && !c.isBlank())
        .reduce((first, second) -> second)
        .ifPresent(words -> done.append(" Last words: ").append(words.strip()));
    return done.toString();
  }

  private java.util.stream.Stream<SubAgentMessage> sinceThePersonSpoke() {
    int lastSpoke = -1;
    for (int i = messages.size() - 1; i >= 0; i--) {
      SubAgentMessage m = messages.get(i);
      if (SubAgentMessage.USER.equals(m.role())
          && !isLoopsOwn(m, REPAIR_PROMPT)
          && !isLoopsOwn(m, STAGNATION_PROMPT)) {
        lastSpoke = i;
        break;
      }
    }
    return messages.subList(Math.max(lastSpoke, 0), messages.size()).stream();
  }

  private static boolean isLoopsOwn(SubAgentMessage m, String prompt) {
    return SubAgentMessage.USER.equals(m.role())
        && m.content() != null
        && m.content().startsWith(prompt);
  }

  private Optional<SubAgentMessage> last() {
    return messages.isEmpty() ? Optional.empty() : Optional.of(messages.getLast());
  }

  private int lastIndexOf(String role) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (role.equals(messages.get(i).role())) {
        return i;
      }
    }
    return -1;
  }
}
