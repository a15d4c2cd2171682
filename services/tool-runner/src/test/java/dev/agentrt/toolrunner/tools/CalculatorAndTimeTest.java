package dev.agentrt.toolrunner.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class CalculatorAndTimeTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Instant NOW = Instant.parse("2026-03-29T01:30:00Z");

  private final Toolbox toolbox =
      Toolbox.of(
          List.of(new Calculator(), new CurrentTime(Clock.fixed(NOW, ZoneOffset.UTC))),
          ToolSettings.defaults(Duration.ofSeconds(30)));

  private double calculate(String expression) {
    ToolOutcome outcome =
        toolbox.run("calculator", JSON.createObjectNode().put("expression", expression).toString());
    assertThat(outcome).as(expression).isInstanceOf(ToolOutcome.Success.class);
    return JSON.readTree(outcome.json()).get("result").asDouble();
  }

  private ToolOutcome.Failure calculatorFails(String expression) {
    ToolOutcome outcome =
        toolbox.run("calculator", JSON.createObjectNode().put("expression", expression).toString());
    assertThat(outcome).as(expression).isInstanceOf(ToolOutcome.Failure.class);
    return (ToolOutcome.Failure) outcome;
  }

  @Test
  void evaluatesArithmetic() {
    assertThat(calculate("(2 + 3) * 4")).isEqualTo(20.0);
    assertThat(calculate("2^10 % 7")).isEqualTo(2.0);
    assertThat(calculate("sqrt(16) / 8")).isEqualTo(0.5);
    assertThat(calculate("-3 + 1.5e2")).isEqualTo(147.0);
    assertThat(calculate("2 * pi")).isEqualTo(2 * Math.PI);
  }

  @Test
  void refusesWhatIsNotArithmetic() {
    for (String code :
        List.of("System.exit(0)", "x + 1", "java.lang.Runtime.getRuntime()", "2 +", "((1)", "")) {
      assertThat(calculatorFails(code).errorType()).as(code).isEqualTo(ErrorType.invalid_arguments);
    }
    assertThat(calculatorFails("1 / 0").message()).contains("Division by zero");
    assertThat(calculatorFails("10^400").message()).contains("no finite value");
  }

  @Test
  void tellsTheTimeInTheZoneAsked() {
    JsonNode paris =
        JSON.readTree(toolbox.run("current_time", "{\"timezone\":\"Europe/Paris\"}").json());
    JsonNode utc = JSON.readTree(toolbox.run("current_time", "{}").json());

    // 01:30 UTC on the day clocks went forward in Paris: 03:30 at +02:00.
    assertThat(paris.get("datetime").asString()).isEqualTo("2026-03-29T03:30:00+02:00");
    assertThat(paris.get("timezone").asString()).isEqualTo("Europe/Paris");
    assertThat(paris.get("dayOfWeek").asString()).isEqualTo("Sunday");
    assertThat(paris.get("utc").asString()).isEqualTo("2026-03-29T01:30:00Z");
    assertThat(utc.get("datetime").asString()).isEqualTo("2026-03-29T01:30:00Z");
    assertThat(utc.get("epochSeconds").asLong()).isEqualTo(NOW.getEpochSecond());
  }

  @Test
  void anUnknownTimeZoneIsAnInvalidArgument() {
    ToolOutcome outcome = toolbox.run("current_time", "{\"timezone\":\"Mars/Olympus\"}");

    assertThat(outcome)
        .isEqualTo(
            new ToolOutcome.Failure(
                ErrorType.invalid_arguments,
                "unknown time zone 'Mars/Olympus'; use an IANA name such as Europe/Paris or UTC"));
  }
}
