package dev.agentrt.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the fake model does for one sub-agent, written into the person's message (which the
 * orchestrator passes on as the task's instruction), so that every request the model sees says how
 * to answer it: {@code bench id=a17 group=g3 rounds=3 calls=1 tool=read_doc latency=500 gate=1000
 * sleep=2000}.
 *
 * @param id names the sub-agent in the fake model's records
 * @param group the run it belongs to; a gate is per group
 * @param rounds model turns that call tools before the final answer
 * @param calls tool calls per such turn, run in parallel
 * @param tool {@code read_doc} (returns at once) or {@code http_get} (waits {@code sleepMs})
 * @param latencyMs how long every agent turn of it takes the model
 * @param gate when more than 0, the first turn of each sub-agent of the group is held until that
 *     many have arrived: that many sub-agents then run truly at once
 * @param sleepMs how long the slow endpoint takes to answer {@code http_get}
 */
record Script(
    String id,
    String group,
    int rounds,
    int calls,
    String tool,
    long latencyMs,
    int gate,
    long sleepMs) {

  static final String PREFIX = "bench ";
  private static final Pattern FIELD = Pattern.compile("(\\w+)=(\\S+)");

  String instruction() {
    return PREFIX
        + "id=%s group=%s rounds=%d calls=%d tool=%s latency=%d gate=%d sleep=%d"
            .formatted(id, group, rounds, calls, tool, latencyMs, gate, sleepMs);
  }

  /** The script in a message, if it holds one. */
  static Optional<Script> in(String text) {
    int start = text.indexOf(PREFIX);
    if (start < 0) {
      return Optional.empty();
    }
    Map<String, String> fields = new HashMap<>();
    Matcher m = FIELD.matcher(text.substring(start + PREFIX.length()));
    while (m.find()) {
      fields.put(m.group(1), m.group(2));
    }
    if (!fields.containsKey("id")) {
      return Optional.empty();
    }
    return Optional.of(
        new Script(
            fields.get("id"),
            fields.getOrDefault("group", "-"),
            Integer.parseInt(fields.getOrDefault("rounds", "1")),
            Integer.parseInt(fields.getOrDefault("calls", "1")),
            fields.getOrDefault("tool", "read_doc"),
            Long.parseLong(fields.getOrDefault("latency", "0")),
            Integer.parseInt(fields.getOrDefault("gate", "0")),
            Long.parseLong(fields.getOrDefault("sleep", "0"))));
  }
}
