package dev.agentrt.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ModelGapsTest {

  @Test
  void aGapRunsFromTheModelsAnswerToTheSameSubAgentsNextRequest() {
    List<FakeOpenAi.Turn> turns =
        List.of(
            // a: answered at 110, next request at 130 (20), answered at 140, next at 150 (10)
            new FakeOpenAi.Turn("a", 2, 150, 151, 1),
            new FakeOpenAi.Turn("a", 0, 100, 110, 1),
            new FakeOpenAi.Turn("a", 1, 130, 140, 2),
            // b: interleaved with a; its gaps are its own
            new FakeOpenAi.Turn("b", 0, 105, 120, 2),
            new FakeOpenAi.Turn("b", 1, 160, 161, 1),
            // c: not asked about
            new FakeOpenAi.Turn("c", 0, 100, 101, 1),
            new FakeOpenAi.Turn("c", 1, 900, 901, 1));

    Stats gaps = ModelGaps.of(turns, Set.of("a", "b"));

    assertThat(gaps.count()).isEqualTo(3);
    assertThat(gaps.min()).isEqualTo(10);
    assertThat(gaps.max()).isEqualTo(40);
    assertThat(gaps.p50()).isEqualTo(20);
  }

  @Test
  void aRoundTheModelNeverSawLeavesNoGapAcrossIt() {
    List<FakeOpenAi.Turn> turns =
        List.of(new FakeOpenAi.Turn("a", 0, 100, 110, 1), new FakeOpenAi.Turn("a", 2, 500, 510, 1));

    assertThat(ModelGaps.of(turns, Set.of("a")).count()).isZero();
  }
}
