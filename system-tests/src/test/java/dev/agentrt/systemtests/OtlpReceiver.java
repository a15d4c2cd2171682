package dev.agentrt.systemtests;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;

/**
 * What an OpenTelemetry collector is to the services, as far as a test needs: it takes OTLP over
 * HTTP/protobuf ({@code POST /v1/traces}) and keeps every span it is sent.
 */
final class OtlpReceiver implements AutoCloseable {

  /** A span as exported: ids in hex, the exporting service, its attributes as strings. */
  record ReceivedSpan(
      String traceId,
      String spanId,
      String parentSpanId,
      String name,
      String service,
      long startNanos,
      Map<String, String> attributes) {

    boolean isRoot() {
      return parentSpanId.isEmpty();
    }
  }

  private final HttpServer server;
  private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

  OtlpReceiver() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext(
        "/v1/traces",
        exchange -> {
          try (InputStream body = exchange.getRequestBody()) {
            boolean gzip = "gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"));
            keep(ExportTraceServiceRequest.parseFrom(gzip ? new GZIPInputStream(body) : body));
            byte[] ok = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, ok.length);
            exchange.getResponseBody().write(ok);
          } catch (IOException | RuntimeException e) {
            exchange.sendResponseHeaders(400, -1);
          } finally {
            exchange.close();
          }
        });
    server.start();
  }

  /** What {@code OTEL_EXPORTER_OTLP_ENDPOINT} is set to for the services. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  List<ReceivedSpan> spans() {
    return List.copyOf(spans);
  }

  private void keep(ExportTraceServiceRequest request) {
    HexFormat hex = HexFormat.of();
    for (ResourceSpans resource : request.getResourceSpansList()) {
      String service = strings(resource.getResource().getAttributesList()).get("service.name");
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        for (io.opentelemetry.proto.trace.v1.Span span : scope.getSpansList()) {
          spans.add(
              new ReceivedSpan(
                  hex.formatHex(span.getTraceId().toByteArray()),
                  hex.formatHex(span.getSpanId().toByteArray()),
                  hex.formatHex(span.getParentSpanId().toByteArray()),
                  span.getName(),
                  service,
                  span.getStartTimeUnixNano(),
                  strings(span.getAttributesList())));
        }
      }
    }
  }

  private static Map<String, String> strings(List<KeyValue> attributes) {
    Map<String, String> values = new LinkedHashMap<>();
    for (KeyValue attribute : attributes) {
      var value = attribute.getValue();
      values.put(
          attribute.getKey(),
          switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case INT_VALUE -> Long.toString(value.getIntValue());
            case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
            case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
            default -> value.toString();
          });
    }
    return values;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
