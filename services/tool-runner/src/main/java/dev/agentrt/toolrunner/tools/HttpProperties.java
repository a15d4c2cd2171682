package dev.agentrt.toolrunner.tools;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.tools.http.*}: what {@code http_get} may fetch.
 *
 * @param allowedHosts host names (or IP literals) it may fetch from, compared exactly and case
 *     insensitively; empty: the tool is not offered
 * @param maxBytes a body longer than this is cut ({@code truncated: true})
 * @param maxRedirects redirects followed, each to an allowed host, before giving up
 */
@ConfigurationProperties("agentrt.tools.http")
public record HttpProperties(
    @DefaultValue List<String> allowedHosts,
    @DefaultValue("262144") int maxBytes,
    @DefaultValue("5") int maxRedirects) {

  public HttpProperties {
    allowedHosts = allowedHosts.stream().map(String::strip).filter(h -> !h.isEmpty()).toList();
    if (maxBytes < 1) {
      throw new IllegalArgumentException("agentrt.tools.http.max-bytes must be positive");
    }
  }
}
