package dev.agentrt.toolrunner.tools;

import dev.agentrt.agents.ToolCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.apache.hc.core5.util.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code http_get {url}}: fetches a URL from an allowed host ({@link HostAllowlist}) on an allowed
 * port (80 and 443 unless configured), at an address that is not inside this network ({@link
 * AddressGuard}). Each request resolves the host once, checks the addresses and connects to exactly
 * those (its own resolver), so the address checked is the address fetched. Redirects are followed
 * by hand, each hop checked the same way, never from https down to http; the body is cut at {@code
 * maxBytes}.
 */
final class HttpGet implements Tool {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  record Page(String url, int status, String contentType, String body, boolean truncated) {}

  private final HostAllowlist allowlist;
  private final AddressGuard addresses;
  private final HttpProperties properties;

  HttpGet(HttpProperties properties) {
    this.properties = properties;
    this.allowlist = new HostAllowlist(properties.allowedHosts());
    this.addresses = new AddressGuard(properties.allowedAddresses());
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
    URI uri = checked(url);
    URI from = null;
    for (int hop = 0; ; hop++) {
      Fetched fetched;
      try {
        fetched = fetch(uri);
      } catch (ToolException e) {
        throw from == null || e.errorType() != ErrorType.not_allowed
            ? e
            : new ToolException(
                ErrorType.not_allowed,
                from + " redirected to a URL that is not allowed: " + e.getMessage());
      }
      if (fetched.page().status() / 100 == 5) {
        // The server's trouble, which may pass: a transient failure, tried again.
        throw new ToolException(
            ErrorType.tool_error,
            "GET " + uri + " answered " + fetched.page().status() + excerpt(fetched.page().body()),
            true);
      }
      String location = fetched.location();
      if (fetched.page().status() / 100 != 3 || location == null) {
        return MAPPER.writeValueAsString(fetched.page());
      }
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
      if ("https".equalsIgnoreCase(uri.getScheme())
          && !"https".equalsIgnoreCase(next.getScheme())) {
        throw new ToolException(
            ErrorType.not_allowed, uri + " redirected from https down to " + next.getScheme());
      }
      from = uri;
      try {
        uri = checked(next.toString());
      } catch (ToolException e) {
        throw new ToolException(
            e.errorType(), uri + " redirected to a URL that is not allowed: " + e.getMessage());
      }
    }
  }

  /** An allowed host on an allowed port. */
  private URI checked(String url) {
    URI uri = allowlist.check(url);
    int port =
        uri.getPort() >= 0
            ? uri.getPort()
            : "https".equals(uri.getScheme().toLowerCase(Locale.ROOT)) ? 443 : 80;
    if (!properties.allowedPorts().contains(port)) {
      throw new ToolException(
          ErrorType.not_allowed,
          "cannot fetch '"
              + url
              + "': port "
              + port
              + " is not allowed; allowed ports: "
              + properties.allowedPorts());
    }
    return uri;
  }

  /** A response: the page, and where a redirect points. */
  private record Fetched(Page page, String location) {}

  /**
   * GET with a client whose resolver knows only this host and answers with the addresses checked,
   * so nothing resolves the name a second time.
   */
  private Fetched fetch(URI uri) {
    String host = uri.getHost();
    InetAddress[] pinned = addresses.resolve(host);
    DnsResolver only =
        new DnsResolver() {
          @Override
          public InetAddress[] resolve(String name) throws UnknownHostException {
            if (!name.equalsIgnoreCase(host) && !name.equalsIgnoreCase(stripBrackets(host))) {
              throw new UnknownHostException(name + " was not checked");
            }
            return pinned.clone();
          }

          @Override
          public String resolveCanonicalHostname(String name) {
            return name;
          }
        };
    ClassicHttpRequest request = ClassicRequestBuilder.get(uri).addHeader("Accept", "*/*").build();
    try (CloseableHttpClient client = client(only);
        ClassicHttpResponse response = client.executeOpen(null, request, null)) {
      Header location = response.getFirstHeader("Location");
      HttpEntity entity = response.getEntity();
      Header type = response.getFirstHeader("Content-Type");
      byte[] bytes;
      try (InputStream body =
          entity == null ? InputStream.nullInputStream() : entity.getContent()) {
        bytes = body.readNBytes(properties.maxBytes() + 1);
      }
      boolean truncated = bytes.length > properties.maxBytes();
      int length = truncated ? properties.maxBytes() : bytes.length;
      Page page =
          new Page(
              uri.toString(),
              response.getCode(),
              type == null ? "" : type.getValue(),
              new String(bytes, 0, length, StandardCharsets.UTF_8),
              truncated);
      return new Fetched(page, location == null ? null : location.getValue());
    } catch (IOException e) {
      if (Thread.currentThread().isInterrupted()) {
        throw new ToolException(ErrorType.timeout, "GET " + uri + " was interrupted");
      }
      // Connection refused or reset, no answer in time: may pass.
      throw new ToolException(ErrorType.tool_error, "GET " + uri + " failed: " + e, true);
    }
  }

  private static CloseableHttpClient client(DnsResolver resolver) {
    return HttpClients.custom()
        .setConnectionManager(
            PoolingHttpClientConnectionManagerBuilder.create()
                .setDnsResolver(resolver)
                .setDefaultConnectionConfig(
                    ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.of(10, TimeUnit.SECONDS))
                        .setSocketTimeout(Timeout.of(30, TimeUnit.SECONDS))
                        .build())
                .build())
        .setDefaultRequestConfig(
            RequestConfig.custom().setResponseTimeout(Timeout.of(30, TimeUnit.SECONDS)).build())
        .disableRedirectHandling()
        .disableAutomaticRetries()
        .disableCookieManagement()
        .build();
  }

  private static String stripBrackets(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  /** ": " and the start of the body on one line, or nothing for an empty body. */
  private static String excerpt(String body) {
    String line = body.strip().replaceAll("\\s+", " ");
    if (line.isEmpty()) {
      return "";
    }
    return ": " + (line.length() <= 200 ? line : line.substring(0, 200) + "…");
  }
}
