package dev.agentrt.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** What {@code ./bench.sh} was asked to do. See {@link #USAGE}. */
record BenchOptions(
    boolean help,
    Set<Integer> scenarios,
    int reps,
    int warmupAgents,
    int warmupBatches,
    int floorSamples,
    int stepAgents,
    int stepRounds,
    int throughputAgents,
    int throughputRounds,
    int slowAgents,
    long latencyMs,
    int toolCalls,
    long toolMs,
    List<String> serviceJvmOptions,
    boolean profile,
    Path out,
    List<Path> compare) {

  static final String USAGE =
      """
      Usage: ./bench.sh [options]

      Starts Kafka, MongoDB and the six services (production JVM flags, the OpenAI provider pointed
      at a scripted fake model in this JVM), runs the scenarios, prints a table and writes one JSON
      file per scenario. The full run took 16 minutes on 2 cores (25 November), most of it the
      warm-up, which runs until the JIT compilers are done (5 to 8 minutes since 5 December).

      Scenarios: 1 floor, 2 step overhead, 3 throughput, 4 slow model, 5 parallel tools,
                 6 footprint (at rest, and under scenario 4 when it runs),
                 7 Restate beside us (the same tool loop on Restate; installs it with npm
                   in bench/restate, skipped, saying why, where it cannot),
                 8 research run (one at a time: POST → answer in the chat),
                 9 local stack (./run.sh as a person runs it, before the benchmark's own
                   stack: ready after a build and later, resident memory at rest and after
                   200 research runs)

      Options:
        --quick                 smaller everything (2 repetitions, 200 slow-model sub-agents, …)
        --scenarios 1,2,…       which scenarios (default all)
        --reps N                repetitions of each scenario (default 3; --quick 2)
        --warm-up-batches N     the most warm-up batches of 100 sub-agents, if the JIT compilers
                                are still at work (default 120)
        --agents N              concurrent sub-agents in scenario 4 (default 1000; --quick 200)
        --latency MS            model latency in scenario 4 (default 500)
        --step-agents N         sub-agents in scenarios 2 and 7 (default 10)
        --step-rounds R         tool rounds per sub-agent in scenarios 2 and 7 (default 10;
                                --quick 5)
        --throughput-agents N   sub-agents at once in scenarios 3 and 7 (default 200; --quick 100)
        --tool-calls K          parallel tool calls in scenario 5 (default 8; --quick 4)
        --tool-ms T             how long each of them takes (default 1000; --quick 500)
        --service-jvm-opts "…"  more JVM options for every service, e.g. a flight recording:
                                "-XX:StartFlightRecording=filename=bench/target/%p.jfr"
        --profile               flight recordings of every JVM during scenario 2's and 3's
                                repetitions, and where their samples fall, by process and by
                                library (bench/target/run/profile/<scenario>/*.jfr; the recorder
                                costs CPU, so read the shares, not the times)
        --out DIR               where the JSON files go (default bench/target/results)
        --compare A B           no run: two earlier runs' results side by side, each metric's
                                median in A and B and the difference (A and B: two scenario
                                files, or two --out directories)
        -h, --help              show this help
      """;

  static BenchOptions parse(List<String> args) {
    boolean quick = args.contains("--quick");
    boolean help = false;
    Set<Integer> scenarios = new TreeSet<>(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9));
    int reps = quick ? 2 : 3;
    int warmupBatches = 120;
    int slowAgents = quick ? 200 : 1000;
    long latency = 500;
    int stepAgents = 10;
    int stepRounds = quick ? 5 : 10;
    int throughputAgents = quick ? 100 : 200;
    int toolCalls = quick ? 4 : 8;
    long toolMs = quick ? 500 : 1000;
    List<String> jvmOptions = List.of();
    boolean profile = false;
    Path out = Path.of("bench", "target", "results");
    List<Path> compare = List.of();
    Iterator<String> it = args.iterator();
    while (it.hasNext()) {
      String arg = it.next();
      switch (arg) {
        case "--quick" -> {}
        case "-h", "--help" -> help = true;
        case "--scenarios" -> {
          scenarios = new TreeSet<>();
          for (String s : value(arg, it).split(",")) {
            int n = number(arg, s.strip(), 1);
            if (n > 9) {
              throw new IllegalArgumentException("--scenarios: there is no scenario " + n);
            }
            scenarios.add(n);
          }
        }
        case "--reps" -> reps = number(arg, value(arg, it), 1);
        case "--warm-up-batches" -> warmupBatches = number(arg, value(arg, it), 1);
        case "--agents" -> slowAgents = number(arg, value(arg, it), 1);
        case "--latency" -> latency = number(arg, value(arg, it), 0);
        case "--step-agents" -> stepAgents = number(arg, value(arg, it), 1);
        case "--step-rounds" -> stepRounds = number(arg, value(arg, it), 2);
        case "--throughput-agents" -> throughputAgents = number(arg, value(arg, it), 1);
        case "--tool-calls" -> toolCalls = number(arg, value(arg, it), 1);
        case "--tool-ms" -> toolMs = number(arg, value(arg, it), 0);
        case "--service-jvm-opts" ->
            jvmOptions =
                Arrays.stream(value(arg, it).trim().split("\\s+"))
                    .filter(s -> !s.isEmpty())
                    .toList();
        case "--profile" -> profile = true;
        case "--out" -> out = Path.of(value(arg, it));
        case "--compare" -> compare = List.of(Path.of(value(arg, it)), Path.of(value(arg, it)));
        default -> throw new IllegalArgumentException("unknown option " + arg);
      }
    }
    if (profile && !scenarios.contains(2) && !scenarios.contains(3)) {
      throw new IllegalArgumentException(
          "--profile records scenarios 2 and 3: add one of them to --scenarios");
    }
    return new BenchOptions(
        help,
        scenarios,
        reps,
        100,
        warmupBatches,
        quick ? 300 : 1000,
        stepAgents,
        stepRounds,
        throughputAgents,
        5,
        slowAgents,
        latency,
        toolCalls,
        toolMs,
        jvmOptions,
        profile,
        out,
        compare);
  }

  private static String value(String option, Iterator<String> it) {
    if (!it.hasNext()) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return it.next();
  }

  private static int number(String option, String value, int min) {
    try {
      int n = Integer.parseInt(value);
      if (n >= min) {
        return n;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new IllegalArgumentException(
        option + " needs a whole number ≥ " + min + ", not '" + value + "'");
  }
}
