package dev.agentrt.toolrunner.calls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentrt.toolrunner.tools.ErrorType;
import dev.agentrt.toolrunner.tools.ToolOutcome;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class ResultSizeCapTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private final ResultSizeCap cap = new ResultSizeCap(1024);

  @Test
  void aResultThatFitsIsLeftAlone() {
    ToolOutcome small = new ToolOutcome.Success("{\"text\":\"" + "x".repeat(1000) + "\"}");

    assertThat(cap.apply(small)).isSameAs(small);
  }

  @Test
  void aLongerResultIsCutOnACharacterWithAMarkerSayingHowMuch() {
    // 'é' is two bytes in UTF-8: a cut at any byte must not split one.
    String text = "é".repeat(5000);

    String cut = ((ToolOutcome.Success) cap.apply(new ToolOutcome.Success(text))).json();

    byte[] bytes = cut.getBytes(StandardCharsets.UTF_8);
    assertThat(bytes.length).isLessThanOrEqualTo(1024);
    assertThat(cut).matches("é+…\\[truncated: 10000 bytes, showing the first \\d+]");
    int shown = Integer.parseInt(cut.replaceAll(".*showing the first (\\d+)]", "$1"));
    assertThat(shown % 2).isZero();
    assertThat(cut.substring(0, shown / 2)).isEqualTo("é".repeat(shown / 2));
    assertThat(shown).isGreaterThan(1024 - 100);
  }

  @Test
  void aLongErrorKeepsItsJsonShapeAndItsType() {
    ToolOutcome.Failure failure =
        new ToolOutcome.Failure(ErrorType.tool_error, "\"quoted\" ".repeat(1000), true);

    ToolOutcome.Failure cut = (ToolOutcome.Failure) cap.apply(failure);

    assertThat(cut.json().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024);
    assertThat(JSON.readTree(cut.json()).get("error_type").asString()).isEqualTo("tool_error");
    assertThat(cut.message()).startsWith("\"quoted\" ").contains("…[truncated: 9000 bytes");
    assertThat(cut.transientFailure()).isTrue();
  }
}
