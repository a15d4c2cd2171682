package dev.agentrt.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoublePredicate;
import org.jspecify.annotations.Nullable;

/**
 * The figures of one scenario: each metric with its value in every repetition (the table shows the
 * median and the spread), an optional target checked against the median, and free-form details for
 * the JSON file.
 */
final class ScenarioResult {

  /** A target: how it reads, and whether a median meets it. */
  record Target(String text, DoublePredicate met) {

    static Target atMost(double limit, String unit) {
      return new Target("≤ " + format(limit) + " " + unit, v -> v <= limit);
    }

    static Target atLeast(double limit, String unit) {
      return new Target("≥ " + format(limit) + " " + unit, v -> v >= limit);
    }
  }

  /** One metric over the repetitions. */
  record Row(String metric, String unit, List<Double> values, @Nullable Target target) {

    double median() {
      return Stats.median(values);
    }

    double min() {
      return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    double max() {
      return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    /** Whether the median meets the target; null when there is none. */
    @Nullable Boolean met() {
      return target == null || values.isEmpty() ? null : target.met().test(median());
    }
  }

  final String id;
  final String title;
  final Map<String, Object> parameters = new LinkedHashMap<>();
  final List<Row> rows = new ArrayList<>();
  final Map<String, Object> details = new LinkedHashMap<>();
  @Nullable String skipped;

  ScenarioResult(String id, String title) {
    this.id = id;
    this.title = title;
  }

  ScenarioResult row(String metric, String unit, List<Double> values, @Nullable Target target) {
    rows.add(new Row(metric, unit, List.copyOf(values), target));
    return this;
  }

  ScenarioResult row(String metric, String unit, List<Double> values) {
    return row(metric, unit, values, null);
  }

  /** What goes into the scenario's JSON file. */
  Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("scenario", id);
    json.put("title", title);
    json.put("parameters", parameters);
    if (skipped != null) {
      json.put("skipped", skipped);
    }
    List<Map<String, Object>> metrics = new ArrayList<>();
    for (Row row : rows) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("metric", row.metric());
      m.put("unit", row.unit());
      m.put("median", round(row.median()));
      m.put("min", round(row.min()));
      m.put("max", round(row.max()));
      m.put("repetitions", row.values().stream().map(ScenarioResult::round).toList());
      if (row.target() != null) {
        m.put("target", row.target().text());
        m.put("met", row.met());
      }
      metrics.add(m);
    }
    json.put("metrics", metrics);
    json.put("details", details);
    return json;
  }

  static double round(double v) {
    return Double.isNaN(v) ? v : Math.round(v * 100) / 100.0;
  }

  static String format(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    if (Math.abs(v) >= 100 || v == Math.rint(v)) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    return String.format(Locale.ROOT, Math.abs(v) >= 10 ? "%.1f" : "%.2f", v);
  }
}
