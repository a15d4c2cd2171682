package dev.agentrt.toolrunner.tools;

import dev.agentrt.agents.ToolCatalog;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.TextStyle;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code current_time {timezone?}}: the date and time now, in an IANA time zone ({@code
 * Europe/Paris}; default UTC).
 */
final class CurrentTime implements Tool {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  record Now(String timezone, String datetime, String utc, String dayOfWeek, long epochSeconds) {}

  private final Clock clock;

  CurrentTime(Clock clock) {
    this.clock = clock;
  }

  @Override
  public String name() {
    return ToolCatalog.CURRENT_TIME;
  }

  @Override
  public String description() {
    return "The current date and time, in an IANA time zone such as Europe/Paris (default UTC)."
        + " Returns {timezone, datetime (ISO-8601 with offset), utc, dayOfWeek, epochSeconds}.";
  }

  @Override
  public String inputSchema() {
    return """
        {"type":"object","additionalProperties":false,
         "properties":{"timezone":{"type":"string","minLength":1}}}""";
  }

  @Override
  public String execute(JsonNode arguments) {
    String name = arguments.path("timezone").asString("UTC").strip();
    ZoneId zone;
    try {
      zone = ZoneId.of(name);
    } catch (DateTimeException e) {
      throw new ToolException(
          ErrorType.invalid_arguments,
          "unknown time zone '" + name + "'; use an IANA name such as Europe/Paris or UTC");
    }
    ZonedDateTime now = ZonedDateTime.now(clock.withZone(zone));
    return MAPPER.writeValueAsString(
        new Now(
            zone.getId(),
            now.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
            now.toInstant().toString(),
            now.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH),
            now.toEpochSecond()));
  }
}
