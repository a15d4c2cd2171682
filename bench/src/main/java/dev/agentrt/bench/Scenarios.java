package dev.agentrt.bench;

import dev.agentrt.bench.ScenarioResult.Target;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** The scenarios of issues 8 and 20, each repeated and summed up in a {@link ScenarioResult}. */
final class Scenarios {

  private static final Duration BATCH_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration FOOTPRINT_SAMPLE = Duration.ofMillis(250);

  /** How long the CPU the stack uses at rest is measured. */
  static final Duration CPU_AT_REST = Duration.ofSeconds(20);

  /**
   * The stack is warm once its JIT compilers took less than this share of its CPU time during a
   * warm-up batch, {@link #QUIET_BATCHES} batches in a row.
   */
  private static final double COMPILING_AT_MOST = 0.05;

  private static final int QUIET_BATCHES = 2;

  /** The most batches of scenario 2's own shape run, unmeasured, before its repetitions. */
  private static final int STEP_WARM_UP_BATCHES = 30;

  private final BenchStack stack;
  private final ChatDriver driver;
  private final BenchOptions options;
  private final Consumer<String> say;
  private int batches;

  /** The floor of one step (p50 of 2 Kafka hops + 1 insert + 2 conditional updates), per rep. */
  private final List<Double> stepFloors = new ArrayList<>();

  /** Peak resident memory (MiB) per process during scenario 4, and of their sum. */
  private final Map<String, Double> peakRss = new LinkedHashMap<>();

  private final List<Double> peakTotalRss = new ArrayList<>();

  Scenarios(BenchStack stack, BenchOptions options, Consumer<String> say) {
    this.stack = stack;
    this.options = options;
    this.say = say;
    this.driver = new ChatDriver(stack.orchestratorUrl());
  }

  /**
   * Instant model and tools until the stack is warm: batches of sub-agents until the JVMs' JIT
   * compilers are done with what the steps run ({@link #COMPILING_AT_MOST}). While they are at work
   * a step costs up to twice the CPU it costs once they are done, and they finish at different
   * times from run to run: measured before that, every scenario would measure the compilers, and
   * two runs of one commit would differ more than two commits do.
   */
  void warmUp() {
    untilCompiled("warm-up", options.warmupBatches(), () -> instant(options.warmupAgents(), 5));
  }

  /**
   * Batches until the JVMs' JIT compilers took less than {@link #COMPILING_AT_MOST} of a batch's
   * CPU time, {@link #QUIET_BATCHES} batches in a row, or {@code most} batches were run.
   */
  private void untilCompiled(String label, int most, Supplier<List<Script>> batch) {
    int quiet = 0;
    for (int i = 1; i <= most; i++) {
      stack.counters(); // as a measured window is read between, see BenchStack.counters()
      Measured run = measured(label, batch.get());
      stack.counters();
      double compiling = run.compilerShare();
      say.accept(
          "  %s %d: %.1f ms CPU per step, %.0f per cent of it compiling"
              .formatted(label, i, run.cpuMillisPerStep(), 100 * compiling));
      quiet = compiling < COMPILING_AT_MOST ? quiet + 1 : 0;
      if (quiet == QUIET_BATCHES) {
        return;
      }
    }
    say.accept("  %s: the compilers are still at work; measuring anyway".formatted(label));
  }

  /** A batch, with the CPU time every process of the stack spent while it ran. */
  private record Measured(
      Batch batch,
      Map<String, Double> cpuSeconds,
      Map<String, Double> compilerCpuSeconds,
      Map<String, Double> collectorCpuSeconds,
      double wallSeconds) {

    long steps() {
      return batch.toolCallsById.values().stream().mapToLong(List::size).sum();
    }

    double cpuSecondsTotal() {
      return sum(cpuSeconds);
    }

    double cpuMillisPerStep() {
      return cpuSecondsTotal() * 1000 / steps();
    }

    /** The share of the CPU time the JVMs' JIT compiler threads took. */
    double compilerShare() {
      return sum(compilerCpuSeconds) / cpuSecondsTotal();
    }

    /** The share of the CPU time the JVMs' garbage collector threads took. */
    double collectorShare() {
      return sum(collectorCpuSeconds) / cpuSecondsTotal();
    }

    /**
     * What a step costs once the JIT compilers are done: the CPU time less their threads'. They
     * compile each method once; on two cores shared by seven JVMs they are still at it minutes into
     * a run.
     */
    double compiledCpuMillisPerStep() {
      return cpuMillisPerStep() * (1 - compilerShare());
    }

    /**
     * Without the bench JVM: its in-memory MongoDB server's CPU per step grows with the documents
     * every batch before left behind, the services' does not.
     */
    double servicesCpuMillisPerStep() {
      double services =
          cpuSeconds.entrySet().stream()
              .filter(e -> !e.getKey().equals(BenchStack.BENCH_JVM))
              .mapToDouble(Map.Entry::getValue)
              .sum();
      return services * 1000 / steps();
    }

    /**
     * The CPU window as {@code [from, to]}, {@code from} taken just before it began: the bench's
     * reads after it are left out of a profile's samples as of the CPU time.
     */
    Instant[] window(Instant from) {
      return new Instant[] {from, from.plusNanos((long) (wallSeconds * 1_000_000_000))};
    }
  }

  /**
   * {@link #batch}, with the CPU time every process spent from its first message posted until every
   * task had ended and its answer was in the chat; what the bench reads afterwards ({@link
   * Batch#collect}) is not in it.
   */
  private Measured measured(String label, List<Script> scripts) {
    Batch[] batch = new Batch[1];
    Cpu cpu =
        cpu(
            stack.pids(),
            () ->
                batch[0] =
                    Batch.ended(stack, driver, scripts.getFirst().group(), scripts, BATCH_TIMEOUT));
    batch[0].collect(stack);
    done(label, batch[0]);
    return new Measured(
        batch[0], cpu.seconds(), cpu.compilerSeconds(), cpu.collectorSeconds(), cpu.wallSeconds());
  }

  /**
   * CPU seconds each of {@code pids} spent while {@code work} ran, of them its JIT compiler
   * threads' and its garbage collector threads', and how long it ran.
   */
  private record Cpu(
      Map<String, Double> seconds,
      Map<String, Double> compilerSeconds,
      Map<String, Double> collectorSeconds,
      double wallSeconds) {

    double total() {
      return sum(seconds);
    }
  }

  private static Cpu cpu(Map<String, Long> pids, Runnable work) {
    Map<String, Double> before = new LinkedHashMap<>();
    Map<String, Proc.JvmThreads> jvmBefore = new LinkedHashMap<>();
    pids.forEach(
        (name, pid) -> {
          before.put(name, Proc.cpuSeconds(pid));
          jvmBefore.put(name, Proc.jvmThreadsCpuSeconds(pid));
        });
    long wallStart = System.nanoTime();
    work.run();
    double wall = (System.nanoTime() - wallStart) / 1e9;
    Map<String, Double> cpu = new LinkedHashMap<>(), compilers = new LinkedHashMap<>();
    Map<String, Double> collectors = new LinkedHashMap<>();
    pids.forEach(
        (name, pid) -> {
          cpu.put(name, Proc.cpuSeconds(pid) - before.get(name));
          Proc.JvmThreads was = jvmBefore.get(name), now = Proc.jvmThreadsCpuSeconds(pid);
          // A thread HotSpot stopped takes its time with it: never below zero.
          compilers.put(name, Math.max(0, now.compilers() - was.compilers()));
          collectors.put(name, Math.max(0, now.collectors() - was.collectors()));
        });
    return new Cpu(cpu, compilers, collectors, wall);
  }

  ScenarioResult floor() {
    ScenarioResult result = new ScenarioResult("1-floor", "1 floor");
    result.parameters.put("samplesPerRep", options.floorSamples());
    result.parameters.put(
        "kafka", "produce (linger.ms 0, acks all) → consumer has it, 256-byte value");
    result.parameters.put("mongo", "insertOne; updateOne {_id, status: pending} → running");
    List<Double> k50 = new ArrayList<>(), k95 = new ArrayList<>(), k99 = new ArrayList<>();
    List<Double> i50 = new ArrayList<>(), i95 = new ArrayList<>(), i99 = new ArrayList<>();
    List<Double> u50 = new ArrayList<>(), u95 = new ArrayList<>(), u99 = new ArrayList<>();
    List<Double> read50 = new ArrayList<>(), stored = new ArrayList<>();
    for (int rep = 0; rep < options.reps(); rep++) {
      Floor.Result floor =
          Floor.measure(stack.kafka.bootstrapServers(), stack.db(), 200, options.floorSamples());
      k50.add(floor.kafkaRoundTrip().p50());
      k95.add(floor.kafkaRoundTrip().p95());
      k99.add(floor.kafkaRoundTrip().p99());
      i50.add(floor.mongoInsert().p50());
      i95.add(floor.mongoInsert().p95());
      i99.add(floor.mongoInsert().p99());
      u50.add(floor.mongoConditionalUpdate().p50());
      u95.add(floor.mongoConditionalUpdate().p95());
      u99.add(floor.mongoConditionalUpdate().p99());
      read50.add(floor.conversationRead().p50());
      stored.add((double) floor.storedMessages());
      stepFloors.add(
          2 * floor.kafkaRoundTrip().p50()
              + floor.mongoInsert().p50()
              + 2 * floor.mongoConditionalUpdate().p50());
      result.details.put("rep" + (rep + 1), floor);
    }
    result
        .row("Kafka produce→consume p50", "ms", k50)
        .row("Kafka produce→consume p95", "ms", k95)
        .row("Kafka produce→consume p99", "ms", k99)
        .row("Mongo insert p50", "ms", i50)
        .row("Mongo insert p95", "ms", i95)
        .row("Mongo insert p99", "ms", i99)
        .row("Mongo conditional update p50", "ms", u50)
        .row("Mongo conditional update p95", "ms", u95)
        .row("Mongo conditional update p99", "ms", u99)
        .row("floor of a step: 2 hops + 1 insert + 2 updates, p50", "ms", stepFloors)
        .row("for comparison: read one conversation, p50", "ms", read50)
        .row("  sub-agent messages stored when read", "", stored);
    return result;
  }

  ScenarioResult stepOverhead() {
    ScenarioResult result = new ScenarioResult("2-step-overhead", "2 step overhead");
    int n = options.stepAgents();
    int rounds = options.stepRounds();
    result.parameters.put("subAgents", n);
    result.parameters.put("toolRounds", rounds);
    result.parameters.put("model", "instant (fake, 0 ms)");
    result.parameters.put("tool", "read_doc of docs/tools.md");
    result.parameters.put(
        "step",
        "tool result stored (tool message createdAt) → next model turn starts (fake model receives"
            + " it) → its tool call starts running (tool call finished − latencyMs)");
    List<Double> p50 = new ArrayList<>(), p95 = new ArrayList<>(), p99 = new ArrayList<>();
    List<Double> wake = new ArrayList<>(), dispatch = new ArrayList<>(), ratio = new ArrayList<>();
    List<Double> cores = new ArrayList<>(), cpuPerStep = new ArrayList<>();
    List<Double> compilerShare = new ArrayList<>(), mongoCommandsPerStep = new ArrayList<>();
    List<Double> collectorShare = new ArrayList<>();
    // Ten sub-agents' longer conversations run code the warm-up's batches did not make hot.
    untilCompiled("step warm-up", STEP_WARM_UP_BATCHES, () -> instant(n, rounds));
    Profile profile = options.profile() ? startProfile(result) : null;
    List<Instant[]> windows = new ArrayList<>();
    for (int rep = 0; rep < options.reps(); rep++) {
      BenchStack.Counters before = stack.counters();
      Instant from = Instant.now();
      Measured measured = measured("step", instant(n, rounds));
      windows.add(measured.window(from));
      BenchStack.Counters after = stack.counters();
      long stepCount = measured.steps();
      mongoCommandsPerStep.add(sum(commandsIn(before, after)) / stepCount);
      result.details.put(
          "mongoCommandsPerStepByKindRep" + (rep + 1),
          perStepByKind(before.commandsByKind(), after.commandsByKind(), stepCount));
      Steps steps = Steps.of(measured.batch());
      p50.add(steps.total().p50());
      p95.add(steps.total().p95());
      p99.add(steps.total().p99());
      wake.add(steps.wake().p50());
      dispatch.add(steps.dispatch().p50());
      // Whether the steps waited on the cores: ten sub-agents stepping as fast as they can.
      cores.add(measured.cpuSecondsTotal() / measured.wallSeconds());
      cpuPerStep.add(measured.cpuMillisPerStep());
      compilerShare.add(100 * measured.compilerShare());
      collectorShare.add(100 * measured.collectorShare());
      result.details.put("rep" + (rep + 1), steps);
      result.details.put("cpuSecondsByProcessRep" + (rep + 1), measured.cpuSeconds());
      result.details.put(
          "collectorCpuSecondsByProcessRep" + (rep + 1), measured.collectorCpuSeconds());
    }
    stopProfile(profile, windows, result);
    double floor = Stats.median(stepFloors);
    if (!stepFloors.isEmpty()) {
      p50.forEach(v -> ratio.add(v / floor));
    }
    result
        .row("step p50", "ms", p50, Target.atMost(25, "ms"))
        .row("step p95", "ms", p95)
        .row("step p99", "ms", p99, Target.atMost(60, "ms"))
        .row("  tool result stored → model turn starts, p50", "ms", wake)
        .row("  model turn starts → tool call runs, p50", "ms", dispatch);
    if (!ratio.isEmpty()) {
      result.row("step p50 / floor of a step", "×", ratio);
    }
    return result
        .row("CPU used, all processes (posts and answers included)", "cores of 2", cores)
        .row("CPU time per step, all processes", "ms", cpuPerStep)
        .row("  of it the JIT compilers' threads", "%", compilerShare)
        .row("  of it the garbage collectors' threads", "%", collectorShare)
        .row("MongoDB commands per step, six services", "", mongoCommandsPerStep);
  }

  ScenarioResult throughput() {
    ScenarioResult result = new ScenarioResult("3-throughput", "3 throughput");
    int n = options.throughputAgents();
    int rounds = options.throughputRounds();
    result.parameters.put("subAgents", n);
    result.parameters.put("toolRounds", rounds);
    result.parameters.put("step", "one model turn and the tool call it asks for");
    result.parameters.put(
        "window", "first message posted → last task ended (decisions and start-up included)");
    List<Double> stepsPerS = new ArrayList<>(), runsPerS = new ArrayList<>();
    List<Double> cores = new ArrayList<>(), stepP50 = new ArrayList<>();
    List<Double> cpuPerStep = new ArrayList<>(), stepsPerFreeCores = new ArrayList<>();
    List<Double> servicesCpuPerStep = new ArrayList<>(), mongoCommandsPerStep = new ArrayList<>();
    List<Double> compilerShare = new ArrayList<>(), compiledCpuPerStep = new ArrayList<>();
    List<Double> collectorShare = new ArrayList<>();
    Map<String, List<Double>> mongoCommandsPerStepByService = new LinkedHashMap<>();
    Profile profile = options.profile() ? startProfile(result) : null;
    List<Instant[]> windows = new ArrayList<>();
    for (int rep = 0; rep < options.reps(); rep++) {
      BenchStack.Counters before = stack.counters();
      Instant from = Instant.now();
      Measured measured = measured("throughput", instant(n, rounds));
      windows.add(measured.window(from));
      BenchStack.Counters after = stack.counters();
      Map<String, Double> commands = commandsIn(before, after);
      Batch batch = measured.batch();
      double seconds = (batch.lastEndedAt() - batch.postedAt) / 1000.0;
      long steps = measured.steps();
      stepsPerS.add(steps / seconds);
      runsPerS.add(batch.succeeded() / seconds);
      double cpuTotal = measured.cpuSecondsTotal();
      cores.add(cpuTotal / measured.wallSeconds());
      // CPU time is what other processes on a shared machine cannot take away: what one step
      // costs, and how many steps per second two free cores could therefore carry.
      cpuPerStep.add(measured.cpuMillisPerStep());
      compilerShare.add(100 * measured.compilerShare());
      collectorShare.add(100 * measured.collectorShare());
      compiledCpuPerStep.add(measured.compiledCpuMillisPerStep());
      servicesCpuPerStep.add(measured.servicesCpuMillisPerStep());
      stepsPerFreeCores.add(2 * steps / cpuTotal);
      stepP50.add(Steps.of(batch).total().p50());
      // Every command in the window, the sweeps' and the heartbeats' too: what a step costs.
      mongoCommandsPerStep.add(sum(commands) / steps);
      commands.forEach(
          (name, count) ->
              mongoCommandsPerStepByService
                  .computeIfAbsent(name, k -> new ArrayList<>())
                  .add(count / steps));
      Map<String, Object> detail = new LinkedHashMap<>();
      detail.put("steps", steps);
      detail.put("mongoCommandsByService", commands);
      detail.put(
          "mongoCommandsPerStepByKind",
          perStepByKind(before.commandsByKind(), after.commandsByKind(), steps));
      detail.put(
          "groupCommits", groupCommitsIn(before.groupCommits(), after.groupCommits(), steps));
      detail.put("succeeded", batch.succeeded());
      detail.put("seconds", seconds);
      detail.put("cpuSecondsByProcess", measured.cpuSeconds());
      detail.put("compilerCpuSecondsByProcess", measured.compilerCpuSeconds());
      detail.put("collectorCpuSecondsByProcess", measured.collectorCpuSeconds());
      detail.put("wallSecondsOfCpuWindow", measured.wallSeconds());
      result.details.put("rep" + (rep + 1), detail);
    }
    stopProfile(profile, windows, result);
    result
        .row("steps per second", "1/s", stepsPerS, Target.atLeast(150, "/s"))
        .row("runs per second", "1/s", runsPerS)
        .row("CPU used, all processes", "cores of 2", cores)
        .row("CPU time per step, all processes", "ms", cpuPerStep, Target.atMost(10, "ms"))
        .row("  of it the JIT compilers' threads", "%", compilerShare)
        .row("  without them: once the JIT is done", "ms", compiledCpuPerStep)
        .row("  of it the garbage collectors' threads", "%", collectorShare)
        .row("CPU time per step, the six services", "ms", servicesCpuPerStep)
        .row("steps per second 2 free cores could carry", "1/s", stepsPerFreeCores)
        .row("step p50 at saturation", "ms", stepP50)
        .row(
            "MongoDB commands per step, six services",
            "",
            mongoCommandsPerStep,
            Target.atMost(8, ""));
    mongoCommandsPerStepByService.forEach(
        (name, perStep) -> result.row("  MongoDB commands per step, " + name, "", perStep));
    return result;
  }

  /**
   * Recordings of every JVM from now on, into a directory of the scenario's; the services' settle
   * in for a moment first.
   */
  private Profile startProfile(ScenarioResult scenario) {
    Map<String, Long> services = new LinkedHashMap<>(stack.pids());
    services.remove(BenchStack.BENCH_JVM);
    Profile profile =
        Profile.start(services, BenchMain.WORK.resolve("profile").resolve(scenario.id));
    Batch.sleep(Duration.ofSeconds(2)); // starting a recording deoptimizes some code
    return profile;
  }

  /** The recordings' samples within the windows, by process and library: printed and kept. */
  private void stopProfile(
      @Nullable Profile profile, List<Instant[]> windows, ScenarioResult scenario) {
    if (profile == null) {
      return;
    }
    Map<String, Map<String, Integer>> samples =
        Profile.samplesByLayer(profile.stop(BenchStack.BENCH_JVM, say), windows);
    scenario.details.put("executionSamplesByLayer", samples);
    Profile.table(samples).forEach(say);
  }

  /** The sum of a figure over the processes. */
  private static double sum(Map<String, Double> byProcess) {
    return byProcess.values().stream().mapToDouble(Double::doubleValue).sum();
  }

  /** Each service's MongoDB commands between two readings of the counters. */
  private static Map<String, Double> commandsIn(
      BenchStack.Counters before, BenchStack.Counters after) {
    Map<String, Double> commands = new LinkedHashMap<>();
    after
        .commands()
        .forEach((name, count) -> commands.put(name, count - before.commands().get(name)));
    return commands;
  }

  /** Each service's commands of each kind in the window, per step, the most frequent first. */
  private static Map<String, Map<String, Double>> perStepByKind(
      Map<String, Map<String, Double>> before, Map<String, Map<String, Double>> after, long steps) {
    Map<String, Map<String, Double>> perStep = new LinkedHashMap<>();
    after.forEach(
        (service, kinds) -> {
          Map<String, Double> was = before.getOrDefault(service, Map.of());
          Map<String, Double> rates = new LinkedHashMap<>();
          kinds.entrySet().stream()
              .map(
                  e ->
                      Map.entry(
                          e.getKey(), (e.getValue() - was.getOrDefault(e.getKey(), 0.0)) / steps))
              .filter(e -> e.getValue() > 0)
              .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
              .forEach(e -> rates.put(e.getKey(), Math.round(e.getValue() * 100) / 100.0));
          perStep.put(service, rates);
        });
    return perStep;
  }

  /**
   * Each service's group commits in the window: per writer, its writes per step and the items one
   * write carried on average (how much the load batched), the busiest writer first.
   */
  private static Map<String, Map<String, Map<String, Double>>> groupCommitsIn(
      Map<String, Map<String, double[]>> before,
      Map<String, Map<String, double[]>> after,
      long steps) {
    Map<String, Map<String, Map<String, Double>>> byService = new LinkedHashMap<>();
    after.forEach(
        (service, writers) -> {
          Map<String, double[]> was = before.getOrDefault(service, Map.of());
          Map<String, Map<String, Double>> rates = new LinkedHashMap<>();
          writers.entrySet().stream()
              .map(
                  e -> {
                    double[] then = was.getOrDefault(e.getKey(), new double[2]);
                    return Map.entry(
                        e.getKey(),
                        new double[] {e.getValue()[0] - then[0], e.getValue()[1] - then[1]});
                  })
              .filter(e -> e.getValue()[0] > 0)
              .sorted((a, b) -> Double.compare(b.getValue()[0], a.getValue()[0]))
              .forEach(
                  e ->
                      rates.put(
                          e.getKey(),
                          Map.of(
                              "writesPerStep",
                              Math.round(e.getValue()[0] / steps * 100) / 100.0,
                              "itemsPerWrite",
                              Math.round(e.getValue()[1] / e.getValue()[0] * 100) / 100.0)));
          byService.put(service, rates);
        });
    return byService;
  }

  ScenarioResult slowModel(boolean sampleFootprint) {
    ScenarioResult result = new ScenarioResult("4-slow-model", "4 slow model");
    int n = options.slowAgents();
    long latency = options.latencyMs();
    int turns = 3;
    result.parameters.put("subAgents", n);
    result.parameters.put(
        "modelTurnsPerSubAgent", turns + " (2 with a tool call, then the answer)");
    result.parameters.put("modelLatencyMs", latency);
    result.parameters.put(
        "makespan",
        "from the moment all "
            + n
            + " sub-agents wait in their first model call (the fake model holds first turns until"
            + " all have arrived) to the last task ended; also to the last answer in the chat"
            + " (the finalizer's, which the person reads)");
    List<Double> makespan = new ArrayList<>(),
        makespanToAnswer = new ArrayList<>(),
        endToEnd = new ArrayList<>(),
        ramp = new ArrayList<>();
    List<Double> maxInFlight = new ArrayList<>(), maxInFlightLater = new ArrayList<>();
    for (int rep = 0; rep < options.reps(); rep++) {
      String group = "slow" + (++batches);
      List<Script> scripts = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        scripts.add(new Script(group + "-" + i, group, turns - 1, 1, "read_doc", latency, n, 0));
      }
      AtomicBoolean sampling = new AtomicBoolean(sampleFootprint);
      Thread sampler = Thread.ofVirtual().start(() -> sampleRss(sampling));
      Batch batch;
      try {
        batch = Batch.run(stack, driver, group, scripts, BATCH_TIMEOUT);
      } finally {
        sampling.set(false);
        join(sampler);
      }
      requireAllSucceeded(batch);
      Long gate = stack.model.gateOpenedAt(group);
      if (gate == null) {
        throw new IllegalStateException("the gate of " + group + " never opened");
      }
      if (stack.model.gateShortBy(group) > 0) {
        result.details.put(
            "rep" + (rep + 1) + "GateTimedOut",
            stack.model.gateShortBy(group) + " sub-agents had not reached their first turn");
      }
      makespan.add((batch.lastEndedAt() - gate) / 1000.0);
      makespanToAnswer.add((batch.lastAnsweredAt - gate) / 1000.0);
      endToEnd.add((batch.lastEndedAt() - batch.postedAt) / 1000.0);
      ramp.add((gate - batch.postedAt) / 1000.0);
      maxInFlight.add((double) stack.model.maxInFlight());
      maxInFlightLater.add(
          batch.turnsById.values().stream()
              .flatMap(List::stream)
              .filter(t -> t.round() >= 1)
              .mapToDouble(FakeOpenAi.Turn::inFlightAtArrival)
              .max()
              .orElse(0));
    }
    result
        .row(
            "makespan (ideal " + ScenarioResult.format(turns * latency / 1000.0) + " s)",
            "s",
            makespan)
        .row("  … to the last answer in the chat", "s", makespanToAnswer, Target.atMost(10, "s"))
        .row("max model calls in flight", "", maxInFlight)
        .row("max in flight in turns 2 and 3", "", maxInFlightLater)
        .row("ramp: messages posted → all in first turn", "s", ramp)
        .row("end to end: first message posted → last task ended", "s", endToEnd);
    return result;
  }

  /** Research runs one at a time in scenario 8, per repetition. */
  static final int RESEARCH_RUNS = 20;

  /**
   * One research run at a time, as a person at the chat sees it: the message posted, the
   * orchestrator's decision, a sub-agent's tool round and final answer, the finalizer's answer in
   * the chat. What the runtime adds to an instant model and tool.
   */
  ScenarioResult researchRun() {
    ScenarioResult result = new ScenarioResult("8-research-run", "8 research run");
    result.parameters.put("runsPerRep", RESEARCH_RUNS);
    result.parameters.put(
        "run", "orchestrator decision, a sub-agent with 1 tool round and its answer, finalizer");
    result.parameters.put(
        "model", "the fake model answering at once over HTTP (the offline model's place)");
    result.parameters.put("window", "POST of the message → the answer stored in the chat");
    List<Double> p50 = new ArrayList<>(), p95 = new ArrayList<>();
    List<Double> decided = new ArrayList<>(), ran = new ArrayList<>(), posted = new ArrayList<>();
    for (int rep = 0; rep < options.reps(); rep++) {
      List<Double> total = new ArrayList<>();
      List<Double> toTask = new ArrayList<>(), taskRun = new ArrayList<>();
      List<Double> toChat = new ArrayList<>();
      for (int i = 0; i < RESEARCH_RUNS; i++) {
        List<Script> one = instant(1, 1);
        Batch run = Batch.run(stack, driver, one.getFirst().group(), one, BATCH_TIMEOUT);
        requireAllSucceeded(run);
        Batch.TaskRun task = run.tasks.getFirst();
        total.add((double) (run.lastAnsweredAt - run.postedAt));
        toTask.add((double) (task.createdAt() - run.postedAt));
        taskRun.add((double) (task.endedAt() - task.createdAt()));
        toChat.add((double) (run.lastAnsweredAt - task.endedAt()));
      }
      Stats stats = Stats.of(total);
      p50.add(stats.p50());
      p95.add(stats.p95());
      decided.add(Stats.of(toTask).p50());
      ran.add(Stats.of(taskRun).p50());
      posted.add(Stats.of(toChat).p50());
      result.details.put("rep" + (rep + 1), Map.of("postToAnswerMs", total));
      say.accept("  %d research runs: p50 %.0f ms".formatted(RESEARCH_RUNS, stats.p50()));
    }
    return result
        .row("POST → answer in the chat, p50", "ms", p50, Target.atMost(250, "ms"))
        .row("POST → answer in the chat, p95", "ms", p95)
        .row("  POST → task stored (decision), p50", "ms", decided)
        .row("  task stored → task ended (sub-agent), p50", "ms", ran)
        .row("  task ended → answer in the chat (finalizer), p50", "ms", posted);
  }

  ScenarioResult parallelTools() {
    ScenarioResult result = new ScenarioResult("5-parallel-tools", "5 parallel tools");
    int k = options.toolCalls();
    long t = options.toolMs();
    result.parameters.put("toolCalls", k);
    result.parameters.put("toolMs", t);
    result.parameters.put("tool", "http_get of a local endpoint that answers after toolMs");
    result.parameters.put(
        "turnTime",
        "model's answer with the k calls sent → next model turn received (all k results back)");
    List<Double> turnTime = new ArrayList<>(),
        overhead = new ArrayList<>(),
        spread = new ArrayList<>(),
        there = new ArrayList<>(),
        back = new ArrayList<>();
    for (int rep = 0; rep < options.reps(); rep++) {
      String group = "tools" + (++batches);
      Script script = new Script(group + "-0", group, 1, k, BenchStack.HTTP_GET, 0, 0, t);
      Batch batch = Batch.run(stack, driver, group, List.of(script), BATCH_TIMEOUT);
      requireAllSucceeded(batch);
      List<SlowEndpoint.Call> calls = stack.slow.calls();
      if (calls.size() < k) {
        throw new IllegalStateException(
            "http_get reached the slow endpoint "
                + calls.size()
                + " times, not "
                + k
                + "; see the tool-runner log");
      }
      FakeOpenAi.Turn first = batch.turn(script.id(), 0);
      FakeOpenAi.Turn next = batch.turn(script.id(), 1);
      double turn = next.receivedAt() - first.answeredAt();
      turnTime.add(turn);
      overhead.add(turn - t);
      long firstArrival = calls.stream().mapToLong(SlowEndpoint.Call::arrivedAt).min().orElse(0);
      long lastArrival = calls.stream().mapToLong(SlowEndpoint.Call::arrivedAt).max().orElse(0);
      spread.add((double) (lastArrival - firstArrival));
      there.add((double) (firstArrival - first.answeredAt()));
      back.add((double) (next.receivedAt() - (lastArrival + t)));
    }
    result
        .row("turn time", "ms", turnTime)
        .row("turn time − t", "ms", overhead, Target.atMost(50, "ms"))
        .row("  answer sent → first call reaches the endpoint", "ms", there)
        .row("  last call answered → next model turn received", "ms", back)
        .row("first → last of the k calls reaching the endpoint", "ms", spread);
    return result;
  }

  /**
   * Scenario 7: the same tool loop on Restate beside this stack, with the same fake model and an
   * instant tool, every step durable on both sides. A step is seen from the model on both ({@link
   * ModelGaps}): with {@code stepAgents} sub-agents its p50 and p99, then, with {@code
   * throughputAgents} at once, steps per second, CPU per step (the runtime's processes and this
   * JVM, which holds the fake model on both sides and Kafka and MongoDB on ours) and resident
   * memory. Skipped, saying why, where Restate cannot be installed or run.
   */
  ScenarioResult restate(Path work) {
    ScenarioResult result = new ScenarioResult("7-restate", "7 Restate beside us");
    int few = options.stepAgents(), rounds = options.stepRounds();
    int many = options.throughputAgents(), manyRounds = options.throughputRounds();
    result.parameters.put("restate", "restate-server 1.7.12, TypeScript SDK 1.17.2 on Node.js");
    result.parameters.put(
        "workload",
        "bench/restate/agent.mjs: per round one ctx.run of the model"
            + " call, one ctx.run of the tool");
    result.parameters.put("step", "fake model answered → the same sub-agent's next model request");
    result.parameters.put("latencyAgents", few);
    result.parameters.put("latencyRounds", rounds);
    result.parameters.put("saturationAgents", many);
    result.parameters.put("saturationRounds", manyRounds);
    Optional<String> missing = RestateSide.install(say);
    if (missing.isPresent()) {
      result.skipped = missing.get();
      say.accept("  skipped: " + missing.get());
      return result;
    }
    Side ours = new Side(), theirs = new Side();
    Map<String, Long> ourPids = stack.pids();
    for (int rep = 0; rep < options.reps(); rep++) {
      List<Script> scripts = instant(few, rounds);
      batch("agentrt, few", scripts);
      ours.gaps(ModelGaps.of(stack.model.turns(), ids(scripts)));
      Measured measured = measured("agentrt, saturation", instant(many, manyRounds));
      Batch batch = measured.batch();
      ours.saturation(
          measured.steps(),
          (batch.lastEndedAt() - batch.postedAt) / 1000.0,
          measured.cpuSecondsTotal());
    }
    ours.rss(ourPids);
    try (RestateSide restate = RestateSide.start(work, stack.model.baseUrl())) {
      Map<String, Long> pids = new LinkedHashMap<>(restate.pids());
      pids.put("bench JVM (fake model + driver)", ProcessHandle.current().pid());
      for (int i = 1; i <= RESTATE_WARM_UP_BATCHES; i++) {
        restateBatch(restate, "Restate warm-up " + i, instant(many, manyRounds));
      }
      for (int rep = 0; rep < options.reps(); rep++) {
        List<Script> scripts = instant(few, rounds);
        restateBatch(restate, "Restate, few", scripts);
        theirs.gaps(ModelGaps.of(stack.model.turns(), ids(scripts)));
        List<Script> load = instant(many, manyRounds);
        Cpu cpu = cpu(pids, () -> restateBatch(restate, "Restate, saturation", load));
        theirs.saturation((long) many * manyRounds, cpu.wallSeconds(), cpu.total());
      }
      theirs.rss(restate.pids());
    }
    result
        .row("agentrt: step p50, " + few + " sub-agents", "ms", ours.p50)
        .row("Restate: step p50, " + few + " sub-agents", "ms", theirs.p50)
        .row("agentrt: step p99", "ms", ours.p99)
        .row("Restate: step p99", "ms", theirs.p99)
        .row("agentrt: steps per second, " + many + " at once", "1/s", ours.stepsPerSecond)
        .row("Restate: steps per second", "1/s", theirs.stepsPerSecond)
        .row("agentrt: CPU time per step, all processes", "ms", ours.cpuPerStep)
        .row("Restate: CPU time per step, all processes", "ms", theirs.cpuPerStep)
        .row("agentrt: RSS, six services + Kafka/MongoDB JVM", "MiB", ours.rss)
        .row("Restate: RSS, server + Node.js service", "MiB", theirs.rss)
        .row("agentrt ÷ Restate: step p50", "×", ratios(ours.p50, theirs.p50))
        .row(
            "agentrt ÷ Restate: steps per second",
            "×",
            ratios(ours.stepsPerSecond, theirs.stepsPerSecond))
        .row(
            "agentrt ÷ Restate: CPU time per step", "×", ratios(ours.cpuPerStep, theirs.cpuPerStep))
        .row("agentrt ÷ Restate: RSS", "×", ratios(ours.rss, theirs.rss));
    return result;
  }

  private static final int RESTATE_WARM_UP_BATCHES = 3;

  /** One runtime's figures in scenario 7, a value per repetition. */
  private static final class Side {
    final List<Double> p50 = new ArrayList<>(), p99 = new ArrayList<>();
    final List<Double> stepsPerSecond = new ArrayList<>(), cpuPerStep = new ArrayList<>();
    final List<Double> rss = new ArrayList<>();

    void gaps(Stats gaps) {
      p50.add(gaps.p50());
      p99.add(gaps.p99());
    }

    void saturation(long steps, double seconds, double cpuSeconds) {
      stepsPerSecond.add(steps / seconds);
      cpuPerStep.add(cpuSeconds * 1000 / steps);
    }

    void rss(Map<String, Long> pids) {
      rss.add(pids.values().stream().mapToDouble(Proc::rssMiB).sum());
    }
  }

  private static List<Double> ratios(List<Double> a, List<Double> b) {
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      ratios.add(a.get(i) / b.get(i));
    }
    return ratios;
  }

  private void restateBatch(RestateSide restate, String label, List<Script> scripts) {
    stack.model.reset();
    long start = System.nanoTime();
    restate.run(scripts, BATCH_TIMEOUT);
    say.accept(
        "  %s: %d sub-agents done in %.1f s"
            .formatted(label, scripts.size(), (System.nanoTime() - start) / 1e9));
  }

  private static Set<String> ids(List<Script> scripts) {
    return scripts.stream().map(Script::id).collect(Collectors.toSet());
  }

  /**
   * Resident memory of every process now, and their sum; then the CPU each uses at rest over {@link
   * #CPU_AT_REST}: the cost a run pays whatever it does (sweeps, renewals, polls), which scenario
   * 3's CPU per step counts too.
   */
  ScenarioResult footprintAtRest(ScenarioResult result) {
    Map<String, Double> rss = new LinkedHashMap<>();
    stack.pids().forEach((name, pid) -> rss.put(name, Proc.rssMiB(pid)));
    result.details.put("atRestMiB", rss);
    result.row("RSS at rest, six services", "MiB", List.of(servicesSum(rss)));
    result.row("RSS at rest, all (with Kafka + Mongo JVM)", "MiB", List.of(sum(rss)));
    Cpu rest = cpu(stack.pids(), () -> Batch.sleep(CPU_AT_REST));
    Map<String, Double> msPerSecond = new LinkedHashMap<>();
    rest.seconds()
        .forEach((name, seconds) -> msPerSecond.put(name, seconds * 1000 / rest.wallSeconds()));
    result.details.put("atRestCpuMsPerSecond", msPerSecond);
    result.row("CPU at rest, six services", "ms/s", List.of(servicesSum(msPerSecond)));
    msPerSecond.forEach((name, ms) -> result.row("  at rest " + name, "ms/s", List.of(ms)));
    return result;
  }

  /** The sum of the six services' values, leaving the bench JVM out. */
  private double servicesSum(Map<String, Double> byProcess) {
    return byProcess.entrySet().stream()
        .filter(e -> stack.services.containsKey(e.getKey()))
        .mapToDouble(Map.Entry::getValue)
        .sum();
  }

  void footprintUnderLoad(ScenarioResult result) {
    if (peakTotalRss.isEmpty()) {
      return;
    }
    result.details.put("peakUnderScenario4MiB", peakRss);
    result.row("RSS peak under scenario 4, all", "MiB", peakTotalRss);
    peakRss.forEach((name, mib) -> result.row("  peak " + name, "MiB", List.of(mib)));
  }

  private void sampleRss(AtomicBoolean sampling) {
    Map<String, Long> pids = stack.pids();
    double peakTotal = 0;
    while (sampling.get()) {
      double total = 0;
      for (Map.Entry<String, Long> e : pids.entrySet()) {
        double mib = Proc.rssMiB(e.getValue());
        total += mib;
        peakRss.merge(e.getKey(), mib, Math::max);
      }
      peakTotal = Math.max(peakTotal, total);
      try {
        Thread.sleep(FOOTPRINT_SAMPLE);
      } catch (InterruptedException e) {
        return;
      }
    }
    if (peakTotal > 0) {
      peakTotalRss.add(peakTotal);
    }
  }

  private Batch batch(String label, List<Script> scripts) {
    return done(
        label, Batch.run(stack, driver, scripts.getFirst().group(), scripts, BATCH_TIMEOUT));
  }

  /** The batch, once every one of its tasks is known to have succeeded, as said. */
  private Batch done(String label, Batch batch) {
    requireAllSucceeded(batch);
    say.accept(
        "  %s: %d sub-agents done in %.1f s"
            .formatted(
                label, batch.scripts.size(), (batch.lastEndedAt() - batch.postedAt) / 1000.0));
    return batch;
  }

  /** n sub-agents, rounds tool rounds each, instant model and tool. */
  private List<Script> instant(int n, int rounds) {
    String group = "g" + (++batches);
    List<Script> scripts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      scripts.add(new Script(group + "-" + i, group, rounds, 1, "read_doc", 0, 0, 0));
    }
    return scripts;
  }

  private static void requireAllSucceeded(Batch batch) {
    if (batch.succeeded() != batch.scripts.size()) {
      throw new IllegalStateException(
          "batch %s: %d of %d tasks succeeded; see bench/target/run/logs"
              .formatted(batch.group, batch.succeeded(), batch.scripts.size()));
    }
  }

  private static void join(Thread thread) {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
