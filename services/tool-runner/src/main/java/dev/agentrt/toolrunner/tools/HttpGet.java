package dev.agentrt.toolrunner.tools;

import dev.agentrt.agents.ToolCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code http_get {url}}: fetches a URL from an allowed host ({@link HostAllowlist}). Redirects are
 * followed by hand, each hop checked against the allowlist; the body is cut at {@code maxBytes}.
 */
final class HttpGet implements Tool {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  record Page(String url, int status, String contentType, String body, boolean truncated) {}

  private final HostAllowlist allowlist;
  private final HttpProperties properties;
  private final HttpClient client =
      HttpClient.newBuilder()
          .followRedirects(HttpClient.Redirect.NEVER)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  HttpGet(HttpProperties properties) {
    this.properties = properties;
    this.allowlist = new HostAllowlist(properties.allowedHosts());
  }

  @Override
  public String name() {
    return ToolCatalog.HTTP_GET;
  }

  @Override
  public String description() {
    return "Fetch a web page or API response with HTTP GET. Only these hosts can be fetched: "
        + String.join(", ", properties.allowedHosts())
        + ". Returns {url, status, contentType, body, truncated}; the body is cut at "
        + properties.maxBytes()
        + " bytes.";
  }

  @Override
  public String inputSchema() {
    return """
        {"type":"object","required":["url"],"additionalProperties":false,
         "properties":{"url":{"type":"string","minLength":1,"maxLength":2048}}}""";
  }

  @Override
  public String execute(JsonNode arguments) {
    String url = arguments.path("url").asString("");
    URI uri = allowlist.check(url);
    for (int hop = 0; ; hop++) {
      HttpResponse<InputStream> response = send(uri);
      int status = response.statusCode();
      String location = response.headers().firstValue("Location").orElse(null);
      if (status / 100 == 5) {
        // The server's trouble, which may pass: a transient failure, tried again.
        Page page = read(uri, response);
        throw new ToolException(
            ErrorType.tool_error,
            "GET " + uri + " answered " + status + excerpt(page.body()),
            true);
      }
      if (status / 100 != 3 || location == null) {
        return MAPPER.writeValueAsString(read(uri, response));
      }
      close(response);
      if (hop >= properties.maxRedirects()) {
        throw new ToolException(
            ErrorType.tool_error,
            url + " redirected more than " + properties.maxRedirects() + " times");
      }
      URI next;
      try {
        next = uri.resolve(location);
      } catch (IllegalArgumentException e) {
        throw new ToolException(
            ErrorType.tool_error, uri + " redirected to an invalid URL: " + location);
      }
      try {
        uri = allowlist.check(next.toString());
      } catch (ToolException e) {
        throw new ToolException(
            ErrorType.not_allowed,
            uri + " redirected to a URL that is not allowed: " + e.getMessage());
      }
    }
  }

  private HttpResponse<InputStream> send(URI uri) {
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .GET()
            .header("Accept", "*/*")
            .timeout(Duration.ofSeconds(30))
            .build();
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      // Connection refused or reset, no answer in time: may pass.
      throw new ToolException(ErrorType.tool_error, "GET " + uri + " failed: " + e, true);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ToolException(ErrorType.timeout, "GET " + uri + " was interrupted");
    }
  }

  private Page read(URI uri, HttpResponse<InputStream> response) {
    try (InputStream body = response.body()) {
      byte[] bytes = body.readNBytes(properties.maxBytes() + 1);
      boolean truncated = bytes.length > properties.maxBytes();
      int length = truncated ? properties.maxBytes() : bytes.length;
      return new Page(
          uri.toString(),
          response.statusCode(),
          response.headers().firstValue("Content-Type").orElse(""),
          new String(bytes, 0, length, StandardCharsets.UTF_8),
          truncated);
    } catch (IOException e) {
      throw new ToolException(ErrorType.tool_error, "reading " + uri + " failed: " + e, true);
    }
  }

  /** ": " and the start of the body on one line, or nothing for an empty body. */
  private static String excerpt(String body) {
    String line = body.strip().replaceAll("\\s+", " ");
    if (line.isEmpty()) {
      return "";
    }
    return ": " + (line.length() <= 200 ? line : line.substring(0, 200) + "…");
  }

  private static void close(HttpResponse<InputStream> response) {
    try {
      response.body().close();
    } catch (IOException e) {
      // Nothing more to read from a redirect.
    }
  }
}
