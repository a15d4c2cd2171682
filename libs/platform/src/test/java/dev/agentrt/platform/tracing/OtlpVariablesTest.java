package dev.agentrt.platform.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OtlpVariablesTest {

  private static Map<String, Object> from(Map<String, String> variables) {
    return OtlpVariables.properties(variables::get);
  }

  @Test
  void withoutAnEndpointNothingIsExported() {
    assertThat(from(Map.of())).isEmpty();
    assertThat(from(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", " ", "OTEL_BSP_SCHEDULE_DELAY", "100")))
        .isEmpty();
  }

  @Test
  void theBaseEndpointGetsTheTracesPathAndTheOtherVariablesTheirProperties() {
    assertThat(
            from(
                Map.of(
                    "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/",
                    "OTEL_EXPORTER_OTLP_HEADERS", "api-key=secret, tenant = a=b",
                    "OTEL_BSP_SCHEDULE_DELAY", "250")))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "management.opentelemetry.tracing.export.otlp.endpoint",
                    "http://collector:4318/v1/traces",
                "management.opentelemetry.tracing.export.otlp.transport", "http",
                "management.opentelemetry.tracing.export.otlp.headers.api-key", "secret",
                "management.opentelemetry.tracing.export.otlp.headers.tenant", "a=b",
                "management.opentelemetry.tracing.export.schedule-delay", "250ms"));
  }

  @Test
  void aTracesEndpointIsTakenAsItIsAndGrpcKeepsTheBase() {
    assertThat(
            from(
                Map.of(
                    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:4318/custom",
                    "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")))
        .containsEntry(
            "management.opentelemetry.tracing.export.otlp.endpoint", "http://traces:4318/custom");
    assertThat(
            from(
                Map.of(
                    "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317",
                    "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")))
        .containsEntry(
            "management.opentelemetry.tracing.export.otlp.endpoint", "http://collector:4317")
        .containsEntry("management.opentelemetry.tracing.export.otlp.transport", "grpc");
  }
}
