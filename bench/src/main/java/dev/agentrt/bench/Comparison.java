package dev.agentrt.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code ./bench.sh --compare A B}: two runs' JSON results side by side, each metric's median in A
 * and in B, the difference and whether it is larger than the noise. A and B are two scenario files,
 * or two result directories (every scenario file both hold).
 *
 * <p>"Outside the spread" means the two runs' repetitions do not overlap (every one of B's above,
 * or below, every one of A's); anything else is within what repetitions of one run already differ
 * by, and says nothing on its own.
 */
final class Comparison {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /**
   * How far apart two runs' machine rows may be before the comparison says the machine moved. A
   * first guess: the fixed work took 29.5 and 32.0 ms in two fast hours, 58.5 in a slow one.
   */
  static final double MACHINE_DRIFT = 0.15;

  /** One metric of one scenario, in both runs. */
  record Line(String scenario, String metric, Spread a, Spread b) {

    double change() {
      return b.median - a.median;
    }

    /** The change as a share of A's median; NaN when A's is 0. */
    double relativeChange() {
      return a.median == 0 ? Double.NaN : change() / a.median;
    }

    boolean outsideSpread() {
      return b.min > a.max || b.max < a.min;
    }
  }

  /** A metric's median and the range of its repetitions in one run. */
  record Spread(double median, double min, double max, int repetitions) {}

  private Comparison() {}

  /**
   * @throws IllegalArgumentException when A and B are not two files or two directories, a file is
   *     not a scenario's result, or two directories share no scenario
   */
  static List<Line> compare(Path a, Path b) {
    for (Path path : List.of(a, b)) {
      if (!Files.exists(path)) {
        throw new IllegalArgumentException("--compare: " + path + " does not exist");
      }
    }
    if (Files.isDirectory(a) != Files.isDirectory(b)) {
      throw new IllegalArgumentException(
          "--compare takes two result files or two directories, not one of each");
    }
    Map<String, Path> as = Files.isDirectory(a) ? scenarioFiles(a) : Map.of("", a);
    Map<String, Path> bs = Files.isDirectory(b) ? scenarioFiles(b) : Map.of("", b);
    List<Line> lines = new ArrayList<>();
    for (Map.Entry<String, Path> scenario : as.entrySet()) {
      Path other = bs.get(scenario.getKey());
      if (other != null) {
        lines.addAll(compareScenario(read(scenario.getValue()), read(other)));
      }
    }
    if (lines.isEmpty()) {
      throw new IllegalArgumentException(
          "no metric is in both " + a + " and " + b + " (are they results of the same scenario?)");
    }
    return lines;
  }

  static void print(List<Line> lines, PrintStream out) {
    String format = "%-22s %-52s %9s %9s %9s %8s  %s%n";
    out.printf(format, "scenario", "metric", "A", "B", "B − A", "", "");
    out.println("-".repeat(124));
    String last = null;
    for (Line line : lines) {
      double relative = line.relativeChange();
      out.printf(
          format,
          line.scenario().equals(last) ? "" : line.scenario(),
          line.metric(),
          ScenarioResult.format(line.a().median()),
          ScenarioResult.format(line.b().median()),
          (line.change() > 0 ? "+" : "") + ScenarioResult.format(line.change()),
          Double.isNaN(relative) ? "" : String.format(Locale.ROOT, "%+.1f %%", 100 * relative),
          line.outsideSpread() ? "outside the spread" : "");
      last = line.scenario();
    }
    out.println(
        "medians of each run's repetitions; \"outside the spread\": no repetition of B within A's"
            + " range, or the reverse. Anything else is within the runs' own noise.");
    for (Line line : machineDrifts(lines)) {
      out.printf(
          Locale.ROOT,
          "%s: the machine's fixed work took %s ms in A, %s in B (%+.0f %%): its CPU times moved"
              + " with the machine, not only with the code.%n",
          line.scenario(),
          ScenarioResult.format(line.a().median()),
          ScenarioResult.format(line.b().median()),
          100 * line.relativeChange());
    }
  }

  /**
   * The scenarios whose machine row ({@link MachineSpeed}) differs by more than {@link
   * #MACHINE_DRIFT} between the two runs.
   */
  static List<Line> machineDrifts(List<Line> lines) {
    return lines.stream()
        .filter(line -> line.metric().startsWith(BenchMain.MACHINE_SPEED_ROW))
        .filter(line -> Math.abs(line.relativeChange()) > MACHINE_DRIFT)
        .toList();
  }

  private static List<Line> compareScenario(JsonNode a, JsonNode b) {
    Map<String, JsonNode> bMetrics = new LinkedHashMap<>();
    for (JsonNode metric : b.path("metrics")) {
      bMetrics.put(label(metric), metric);
    }
    List<Line> lines = new ArrayList<>();
    for (JsonNode metric : a.path("metrics")) {
      JsonNode other = bMetrics.get(label(metric));
      if (other != null) {
        lines.add(
            new Line(a.path("title").asString(), label(metric), spread(metric), spread(other)));
      }
    }
    return lines;
  }

  private static String label(JsonNode metric) {
    String unit = metric.path("unit").asString();
    return metric.path("metric").asString() + (unit.isEmpty() ? "" : " (" + unit + ")");
  }

  private static Spread spread(JsonNode metric) {
    return new Spread(
        metric.path("median").asDouble(Double.NaN),
        metric.path("min").asDouble(Double.NaN),
        metric.path("max").asDouble(Double.NaN),
        metric.path("repetitions").size());
  }

  /** A directory's scenario files by name. */
  private static Map<String, Path> scenarioFiles(Path dir) {
    Map<String, Path> files = new LinkedHashMap<>();
    try (Stream<Path> list = Files.list(dir)) {
      list.filter(p -> p.getFileName().toString().endsWith(".json"))
          .sorted()
          .forEach(p -> files.put(p.getFileName().toString(), p));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static JsonNode read(Path file) {
    JsonNode json;
    try {
      json = JSON.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("--compare: " + file + " is not JSON", e);
    }
    if (!json.path("metrics").isArray()) {
      throw new IllegalArgumentException(
          "--compare: " + file + " is not a scenario's result (no \"metrics\")");
    }
    return json;
  }
}
