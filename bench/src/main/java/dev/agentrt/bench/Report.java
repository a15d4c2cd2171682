package dev.agentrt.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** Prints the table of all scenarios and writes one JSON file per scenario. */
final class Report {

  private static final JsonMapper JSON =
      JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  private Report() {}

  static void print(List<ScenarioResult> results, PrintStream out) {
    String format = "%-22s %-52s %9s  %-18s %-12s %s%n";
    out.printf(format, "scenario", "metric", "median", "spread (min–max)", "target", "");
    out.println("-".repeat(124));
    for (ScenarioResult result : results) {
      if (result.skipped != null) {
        out.printf(format, result.title, result.skipped, "", "", "", "");
        continue;
      }
      String scenario = result.title;
      for (ScenarioResult.Row row : result.rows) {
        String spread =
            row.values().size() < 2
                ? "(1 run)"
                : "%s–%s (%d)"
                    .formatted(
                        ScenarioResult.format(row.min()),
                        ScenarioResult.format(row.max()),
                        row.values().size());
        Boolean met = row.met();
        out.printf(
            format,
            scenario,
            row.metric() + (row.unit().isEmpty() ? "" : " (" + row.unit() + ")"),
            ScenarioResult.format(row.median()),
            spread,
            row.target() == null ? "" : row.target().text(),
            met == null ? "" : met ? "met" : "MISSED");
        scenario = "";
      }
    }
  }

  /** Writes {@code <dir>/<id>.json}; returns the file. */
  static Path write(ScenarioResult result, Path dir) {
    try {
      Files.createDirectories(dir);
      Path file = dir.resolve(result.id + ".json");
      Files.writeString(file, JSON.writeValueAsString(result.toJson()));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
