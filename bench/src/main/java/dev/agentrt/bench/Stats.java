package dev.agentrt.bench;

import java.util.Arrays;
import java.util.List;

/**
 * Summary of a sample of latencies (milliseconds): count, min, percentiles by the nearest-rank
 * method (the p-th percentile is the smallest value with at least p % of the sample at or below
 * it), max, mean.
 */
record Stats(int count, double min, double p50, double p95, double p99, double max, double mean) {

  static final Stats EMPTY = new Stats(0, 0, 0, 0, 0, 0, 0);

  static Stats of(List<Double> values) {
    if (values.isEmpty()) {
      return EMPTY;
    }
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return new Stats(
        sorted.length,
        sorted[0],
        percentile(sorted, 50),
        percentile(sorted, 95),
        percentile(sorted, 99),
        sorted[sorted.length - 1],
        Arrays.stream(sorted).average().orElse(0));
  }

  /**
   * Nearest rank: the value at rank ceil(p/100 × n), counting from 1.
   *
   * @param sorted ascending, not empty
   */
  static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      throw new IllegalArgumentException("no values");
    }
    if (p <= 0 || p > 100) {
      throw new IllegalArgumentException("percentile must be in (0, 100], not " + p);
    }
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.max(rank, 1) - 1];
  }

  /** Median of a few repetitions' figures: the middle one, or the mean of the two middle ones. */
  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
}
