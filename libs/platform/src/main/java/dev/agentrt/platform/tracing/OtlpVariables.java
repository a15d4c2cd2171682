package dev.agentrt.platform.tracing;

import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The OpenTelemetry SDK's standard variables as Spring Boot's properties, so every service exports
 * its spans where {@code OTEL_EXPORTER_OTLP_ENDPOINT} says, as any OpenTelemetry program would:
 *
 * <ul>
 *   <li>{@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}, else {@code OTEL_EXPORTER_OTLP_ENDPOINT} with
 *       {@code /v1/traces} (OTLP over HTTP/protobuf; the endpoint as it is with {@code
 *       OTEL_EXPORTER_OTLP_PROTOCOL=grpc}): where spans go. Unset: nothing leaves the process.
 *   <li>{@code OTEL_EXPORTER_OTLP_HEADERS} ({@code key=value,…}): headers of every export.
 *   <li>{@code OTEL_BSP_SCHEDULE_DELAY} (milliseconds): how long spans wait to be sent in a batch.
 * </ul>
 *
 * Properties set explicitly ({@code management.opentelemetry.tracing.export.*}) win: these have the
 * lowest precedence.
 */
public class OtlpVariables implements EnvironmentPostProcessor {

  static final String EXPORT = "management.opentelemetry.tracing.export.";

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    Map<String, Object> properties = properties(environment::getProperty);
    if (!properties.isEmpty()) {
      environment
          .getPropertySources()
          .addLast(new MapPropertySource("OpenTelemetry variables", properties));
    }
  }

  /** A variable's value by its name; null when unset. */
  interface Variables {
    @Nullable String get(String name);
  }

  static Map<String, Object> properties(Variables variables) {
    Map<String, Object> properties = new HashMap<>();
    boolean grpc = "grpc".equals(variables.get("OTEL_EXPORTER_OTLP_PROTOCOL"));
    String endpoint = blankToNull(variables.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"));
    String base = blankToNull(variables.get("OTEL_EXPORTER_OTLP_ENDPOINT"));
    if (endpoint == null && base != null) {
      endpoint = grpc ? base : base.replaceAll("/+$", "") + "/v1/traces";
    }
    if (endpoint == null) {
      return properties;
    }
    properties.put(EXPORT + "otlp.endpoint", endpoint);
    properties.put(EXPORT + "otlp.transport", grpc ? "grpc" : "http");
    String headers = blankToNull(variables.get("OTEL_EXPORTER_OTLP_HEADERS"));
    if (headers != null) {
      for (String header : headers.split(",")) {
        int equals = header.indexOf('=');
        if (equals > 0) {
          properties.put(
              EXPORT + "otlp.headers." + header.substring(0, equals).strip(),
              header.substring(equals + 1).strip());
        }
      }
    }
    String delay = blankToNull(variables.get("OTEL_BSP_SCHEDULE_DELAY"));
    if (delay != null) {
      properties.put(EXPORT + "schedule-delay", delay + "ms");
    }
    return properties;
  }

  private static @Nullable String blankToNull(@Nullable String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }
}
