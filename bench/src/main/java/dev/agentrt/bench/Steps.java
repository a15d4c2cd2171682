package dev.agentrt.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Per-step latencies of a batch of single-call rounds. Step r → r+1 of a sub-agent runs from its
 * round-r tool result being stored (the tool message's {@code createdAt}), through the fake model
 * receiving round r+1 ({@code wake}), to round r+1's tool call starting to run ({@code dispatch}:
 * the model's answer stored, the call published, claimed by tool-runner). Times are epoch
 * milliseconds, as MongoDB stores them.
 */
record Steps(Stats total, Stats wake, Stats dispatch) {

  static Steps of(Batch batch) {
    List<Double> total = new ArrayList<>(), wake = new ArrayList<>(), dispatch = new ArrayList<>();
    for (Script script : batch.scripts) {
      List<Long> results = batch.toolResultsById.getOrDefault(script.id(), List.of());
      List<Batch.ToolCallRun> calls = batch.toolCallsById.getOrDefault(script.id(), List.of());
      for (int r = 0; r + 1 < script.rounds(); r++) {
        FakeOpenAi.Turn next = batch.turn(script.id(), r + 1);
        if (r >= results.size() || r + 1 >= calls.size() || next == null) {
          continue;
        }
        long stored = results.get(r);
        long started = calls.get(r + 1).startedAt();
        total.add((double) (started - stored));
        wake.add((double) (next.receivedAt() - stored));
        dispatch.add((double) (started - next.receivedAt()));
      }
    }
    return new Steps(Stats.of(total), Stats.of(wake), Stats.of(dispatch));
  }
}
