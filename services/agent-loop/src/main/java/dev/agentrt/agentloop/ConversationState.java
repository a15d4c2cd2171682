package dev.agentrt.agentloop;

import dev.agentrt.store.RequestedToolCall;
import dev.agentrt.store.SubAgentMessage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a sub-agent's conversation says about the next step, read from the messages alone (DESIGN
 * invariant 3): whether its last answer still has an outcome to apply, whether tool calls are still
 * pending, whether a message awaits a model turn.
 */
record ConversationState(List<SubAgentMessage> messages) {

  /** How a repair request starts: the loop's own user message, not the person's. */
  static final String REPAIR_PROMPT =
      "Your final answer does not satisfy the required output schema.";

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

  /** A user or tool message waits for the model, and no tool call is still running. */
  boolean awaitsModelTurn() {
    return last()
            .map(
                m -> SubAgentMessage.USER.equals(m.role()) || SubAgentMessage.TOOL.equals(m.role()))
            .orElse(false)
        && pendingToolCalls().isEmpty();
  }

  /**
   * The messages in an order every provider accepts: the results of an assistant message's tool
   * calls right after it. A message that arrived while those calls were running (a follow-up from
   * the person) comes after their results.
   */
  List<SubAgentMessage> modelContext() {
    List<SubAgentMessage> ordered = new ArrayList<>();
    List<SubAgentMessage> arrivedMeanwhile = new ArrayList<>();
    Set<String> running = new HashSet<>();
    for (SubAgentMessage m : messages) {
      if (SubAgentMessage.TOOL.equals(m.role())) {
        ordered.add(m);
        running.remove(m.toolCallId());
        if (running.isEmpty()) {
          ordered.addAll(arrivedMeanwhile);
          arrivedMeanwhile.clear();
        }
      } else if (!running.isEmpty()) {
        arrivedMeanwhile.add(m);
      } else {
        ordered.add(m);
        if (SubAgentMessage.ASSISTANT.equals(m.role())) {
          m.toolCalls().forEach(call -> running.add(call.id()));
        }
      }
    }
    ordered.addAll(arrivedMeanwhile);
    return ordered;
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
    return (int) sinceThePersonSpoke().filter(ConversationState::isRepairRequest).count();
  }

  private java.util.stream.Stream<SubAgentMessage> sinceThePersonSpoke() {
    int lastSpoke = -1;
    for (int i = messages.size() - 1; i >= 0; i--) {
      SubAgentMessage m = messages.get(i);
      if (SubAgentMessage.USER.equals(m.role()) && !isRepairRequest(m)) {
        lastSpoke = i;
        break;
      }
    }
    return messages.subList(Math.max(lastSpoke, 0), messages.size()).stream();
  }

  private static boolean isRepairRequest(SubAgentMessage m) {
    return SubAgentMessage.USER.equals(m.role())
        && m.content() != null
        && m.content().startsWith(REPAIR_PROMPT);
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
