package dev.agentrt.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {

  @Test
  void percentilesAreNearestRankOnTheSortedSample() {
    List<Double> values = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      values.add((double) i);
    }
    Collections.shuffle(values);

    Stats stats = Stats.of(values);

    assertThat(stats.count()).isEqualTo(100);
    assertThat(stats.min()).isEqualTo(1);
    assertThat(stats.p50()).isEqualTo(50);
    assertThat(stats.p95()).isEqualTo(95);
    assertThat(stats.p99()).isEqualTo(99);
    assertThat(stats.max()).isEqualTo(100);
    assertThat(stats.mean()).isEqualTo(50.5);
  }

  @Test
  void aSmallSampleRoundsTheRankUp() {
    double[] sorted = {10, 20, 30};

    assertThat(Stats.percentile(sorted, 50)).isEqualTo(20);
    assertThat(Stats.percentile(sorted, 99)).isEqualTo(30);
    assertThat(Stats.percentile(sorted, 1)).isEqualTo(10);
    assertThat(Stats.percentile(new double[] {7}, 99)).isEqualTo(7);
  }

  @Test
  void anEmptySampleHasNoPercentiles() {
    assertThat(Stats.of(List.of())).isEqualTo(Stats.EMPTY);
    assertThatThrownBy(() -> Stats.percentile(new double[0], 50))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theMedianOfRepetitionsIsTheMiddleOne() {
    assertThat(Stats.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
    assertThat(Stats.median(List.of(4.0, 1.0, 2.0, 3.0))).isEqualTo(2.5);
  }
}
