package dev.agentrt.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** {@code ./bench.sh}: starts the stack, runs the scenarios, prints the table, writes JSON. */
public final class BenchMain {

  static final Path WORK = Path.of("bench", "target", "run");
  private static final Instant START = Instant.now();

  /**
   * Every scenario's last row: how fast the machine was just before it ({@link MachineSpeed}), so
   * that {@code --compare} sets two runs' speeds side by side with their figures.
   */
  static final String MACHINE_SPEED_ROW = "machine: a fixed work's CPU time, just before";

  private BenchMain() {}

  public static void main(String[] args) {
    BenchOptions options;
    try {
      options = BenchOptions.parse(List.of(args));
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage() + " (see --help)");
      System.exit(2);
      return;
    }
    if (options.help()) {
      System.out.print(BenchOptions.USAGE);
      return;
    }
    if (!options.compare().isEmpty()) {
      try {
        Comparison.print(
            Comparison.compare(options.compare().get(0), options.compare().get(1)), System.out);
      } catch (IllegalArgumentException e) {
        System.err.println("error: " + e.getMessage());
        System.exit(2);
      }
      return;
    }
    Path repoRoot = Path.of("").toAbsolutePath();
    deleteTree(WORK);
    // Kafka's and the Mongo server's logging to a file, before anything logs.
    System.setProperty("localstack.log.file", WORK.resolve("logs/kafka.log").toString());
    System.setProperty("logback.configurationFile", "local-stack-logback.xml");
    List<ScenarioResult> results = new ArrayList<>();
    // Before the benchmark's own stack, which would share the cores with it.
    run(
        results,
        options.scenarios().contains(9),
        "9 local stack",
        () -> new LocalStackScenario(repoRoot, WORK, options.reps(), BenchMain::sayLine).run());
    if (options.scenarios().equals(Set.of(9))) {
      printAndWrite(results, options.out());
      return;
    }
    say(
        "starting Kafka, MongoDB and the six services (production JVM flags); logs in %s",
        WORK.resolve("logs"));
    try (BenchStack stack = BenchStack.start(repoRoot, WORK, options.serviceJvmOptions())) {
      say("ready");
      Scenarios scenarios = new Scenarios(stack, options, BenchMain::sayLine);
      say("warming up");
      scenarios.warmUp();
      ScenarioResult footprint = new ScenarioResult("6-footprint", "6 footprint");
      MachineSpeed.Calibration footprintSpeed = null;
      if (options.scenarios().contains(6)) {
        // Measured before the rest it reads, which it would otherwise disturb.
        footprintSpeed = starting("6 footprint, at rest", Proc.loadAverage());
        Batch.sleep(Duration.ofSeconds(3));
        scenarios.footprintAtRest(footprint);
      }
      // The floor always runs: the step overhead is a ratio to it.
      run(
          results,
          options.scenarios().contains(1) || options.scenarios().contains(2),
          "1 floor",
          scenarios::floor);
      run(results, options.scenarios().contains(2), "2 step overhead", scenarios::stepOverhead);
      run(results, options.scenarios().contains(3), "3 throughput", scenarios::throughput);
      run(
          results,
          options.scenarios().contains(4),
          "4 slow model",
          () -> scenarios.slowModel(options.scenarios().contains(6)));
      run(results, options.scenarios().contains(5), "5 parallel tools", scenarios::parallelTools);
      run(results, options.scenarios().contains(8), "8 research run", scenarios::researchRun);
      run(
          results,
          options.scenarios().contains(7),
          "7 Restate beside us",
          () -> scenarios.restate(WORK));
      if (options.scenarios().contains(6)) {
        if (results.stream().anyMatch(r -> r.title.equals("4 slow model") && r.skipped == null)) {
          scenarios.footprintUnderLoad(footprint);
        }
        footprint.row(MACHINE_SPEED_ROW, "ms", List.of(footprintSpeed.cpuMillis()));
        results.add(footprint);
      }
    } catch (RuntimeException e) {
      System.err.println("error: " + e.getMessage());
      printAndWrite(results, options.out());
      System.exit(1);
    }
    printAndWrite(results, options.out());
  }

  private static void run(
      List<ScenarioResult> results,
      boolean wanted,
      String name,
      Supplier<ScenarioResult> scenario) {
    if (!wanted) {
      return;
    }
    double loadBefore = Proc.loadAverage();
    MachineSpeed.Calibration speed = starting(name, loadBefore);
    try {
      ScenarioResult result = scenario.get();
      result.details.put("loadAverage1mBeforeAndAfter", List.of(loadBefore, Proc.loadAverage()));
      result.row(MACHINE_SPEED_ROW, "ms", List.of(speed.cpuMillis()));
      results.add(result);
    } catch (RuntimeException e) {
      ScenarioResult failed = new ScenarioResult(name.replace(' ', '-'), name);
      failed.skipped = "failed: " + e.getMessage();
      results.add(failed);
      say("  failed: %s", e.getMessage());
    }
  }

  /**
   * Says that a scenario starts, with the load average and how fast the machine is now; the speed
   * goes into the scenario's last row ({@link #MACHINE_SPEED_ROW}).
   */
  private static MachineSpeed.Calibration starting(String name, double loadAverage) {
    MachineSpeed.Calibration speed = MachineSpeed.measure();
    say(
        "scenario %s (load average %.1f; the machine's fixed work took %.1f ms of CPU)",
        name, loadAverage, speed.cpuMillis());
    return speed;
  }

  private static void printAndWrite(List<ScenarioResult> results, Path out) {
    System.out.println();
    Report.print(results, System.out);
    StringBuilder load =
        new StringBuilder("load average (1 min) before → after each scenario, 2 cores:");
    for (ScenarioResult r : results) {
      if (r.details.get("loadAverage1mBeforeAndAfter") instanceof List<?> l) {
        load.append(" %s %.1f → %.1f;".formatted(r.title, (Double) l.get(0), (Double) l.get(1)));
      }
    }
    System.out.println(load);
    results.forEach(r -> Report.write(r, out));
    say("JSON per scenario in %s", out);
  }

  private static void say(String format, Object... args) {
    System.out.printf(
        Locale.ROOT,
        "[%6.1f s] %s%n",
        Duration.between(START, Instant.now()).toMillis() / 1000.0,
        format.formatted(args));
  }

  /** A line as it is, a per cent sign included. */
  private static void sayLine(String line) {
    say("%s", line);
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
