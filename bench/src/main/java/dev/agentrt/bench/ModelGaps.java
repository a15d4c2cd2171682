package dev.agentrt.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A step seen from the fake model alone: from its answer to a sub-agent's turn to that sub-agent's
 * next request. In between, the runtime makes the answer durable, runs the tool call it asks for,
 * makes the result durable and starts the next turn. Taken from the model's own records, the same
 * figure can be had of any runtime that talks to the fake model (scenario 7 compares two).
 */
final class ModelGaps {

  private ModelGaps() {}

  /** The gaps of the sub-agents {@code ids}, in milliseconds, over all their rounds. */
  static Stats of(Collection<FakeOpenAi.Turn> turns, Set<String> ids) {
    Map<String, List<FakeOpenAi.Turn>> byId = new HashMap<>();
    for (FakeOpenAi.Turn turn : turns) {
      if (ids.contains(turn.id())) {
        byId.computeIfAbsent(turn.id(), k -> new ArrayList<>()).add(turn);
      }
    }
    List<Double> gaps = new ArrayList<>();
    for (List<FakeOpenAi.Turn> sequence : byId.values()) {
      sequence.sort(Comparator.comparingInt(FakeOpenAi.Turn::round));
      for (int i = 0; i + 1 < sequence.size(); i++) {
        FakeOpenAi.Turn turn = sequence.get(i), next = sequence.get(i + 1);
        if (next.round() == turn.round() + 1) {
          gaps.add((double) (next.receivedAt() - turn.answeredAt()));
        }
      }
    }
    return Stats.of(gaps);
  }
}
