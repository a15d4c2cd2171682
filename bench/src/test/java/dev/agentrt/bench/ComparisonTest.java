package dev.agentrt.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ComparisonTest {

  @TempDir Path dir;

  @Test
  void twoRunsOfAScenarioAreComparedMetricByMetric() {
    Path a =
        Report.write(
            throughput(List.of(11.5, 10.9, 11.7, 12.1), List.of(50.0, 52.0)), dir.resolve("a"));
    Path b =
        Report.write(
            throughput(List.of(11.8, 11.7, 11.2, 11.9), List.of(60.0, 62.0)), dir.resolve("b"));

    List<Comparison.Line> lines = Comparison.compare(a, b);

    assertThat(lines)
        .extracting(Comparison.Line::metric)
        .containsExactly("CPU time per step, the six services (ms)", "steps per second (1/s)");
    Comparison.Line cpu = lines.get(0);
    assertThat(cpu.a().median()).isEqualTo(11.6);
    assertThat(cpu.b().median()).isEqualTo(11.75);
    assertThat(cpu.relativeChange()).isCloseTo(0.0129, offset(1e-3));
    assertThat(cpu.outsideSpread()).as("B's repetitions fall within A's range").isFalse();
    assertThat(lines.get(1).outsideSpread()).as("every B above every A").isTrue();

    String printed = printed(lines);
    assertThat(printed).contains("3 throughput").contains("+0.15").contains("+1.3 %");
    assertThat(printed).containsOnlyOnce("outside the spread" + System.lineSeparator());
  }

  @Test
  void aMachineThatRanSlowerInOneRunIsNamed() {
    Path a =
        Report.write(
            throughput(List.of(14.1, 15.5), List.of(150.0, 142.0))
                .row(BenchMain.MACHINE_SPEED_ROW, "ms", List.of(29.5)),
            dir.resolve("a"));
    Path b =
        Report.write(
            throughput(List.of(19.4, 23.7), List.of(108.0, 91.0))
                .row(BenchMain.MACHINE_SPEED_ROW, "ms", List.of(58.5)),
            dir.resolve("b"));
    Path alike =
        Report.write(
            throughput(List.of(19.4, 23.7), List.of(108.0, 91.0))
                .row(BenchMain.MACHINE_SPEED_ROW, "ms", List.of(31.0)),
            dir.resolve("c"));

    List<Comparison.Line> slower = Comparison.compare(a, b);

    assertThat(Comparison.machineDrifts(slower)).hasSize(1);
    assertThat(printed(slower))
        .contains("3 throughput: the machine's fixed work took 29.5 ms in A, 58.5 in B (+98 %)");
    List<Comparison.Line> same = Comparison.compare(a, alike);
    assertThat(Comparison.machineDrifts(same)).as("5 %% apart: the same machine").isEmpty();
    assertThat(printed(same)).doesNotContain("the machine's fixed work");
  }

  @Test
  void twoDirectoriesAreComparedByTheScenariosBothHold() throws IOException {
    Report.write(throughput(List.of(10.0), List.of(50.0)), dir.resolve("a"));
    Report.write(throughput(List.of(12.0), List.of(40.0)), dir.resolve("b"));
    ScenarioResult onlyInB = new ScenarioResult("5-parallel-tools", "5 parallel tools");
    Report.write(onlyInB.row("turn time − t", "ms", List.of(48.0)), dir.resolve("b"));

    List<Comparison.Line> lines = Comparison.compare(dir.resolve("a"), dir.resolve("b"));

    assertThat(lines).extracting(Comparison.Line::scenario).containsOnly("3 throughput");
    assertThat(lines.get(0).change()).isEqualTo(2.0);
  }

  @Test
  void whatCannotBeComparedIsRefusedWithAReason() throws IOException {
    Path result = Report.write(throughput(List.of(10.0), List.of(50.0)), dir.resolve("a"));
    Path notAResult = Files.writeString(dir.resolve("other.json"), "{\"name\": \"x\"}");
    Path other =
        Report.write(
            new ScenarioResult("1-floor", "1 floor").row("Kafka hop p50", "ms", List.of(0.6)),
            dir.resolve("c"));

    assertThatThrownBy(() -> Comparison.compare(result, dir.resolve("missing.json")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not exist");
    assertThatThrownBy(() -> Comparison.compare(result, notAResult))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a scenario's result");
    assertThatThrownBy(() -> Comparison.compare(result, dir.resolve("c")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("two result files or two directories");
    assertThatThrownBy(() -> Comparison.compare(result, other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no metric is in both");
  }

  @Test
  void compareTakesTwoPaths() {
    assertThat(BenchOptions.parse(List.of("--compare", "a.json", "b.json")).compare())
        .containsExactly(Path.of("a.json"), Path.of("b.json"));
    assertThatThrownBy(() -> BenchOptions.parse(List.of("--compare", "a.json")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--compare needs a value");
  }

  private static ScenarioResult throughput(List<Double> cpu, List<Double> steps) {
    return new ScenarioResult("3-throughput", "3 throughput")
        .row("CPU time per step, the six services", "ms", cpu)
        .row("steps per second", "1/s", steps);
  }

  private static String printed(List<Comparison.Line> lines) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Comparison.print(lines, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
