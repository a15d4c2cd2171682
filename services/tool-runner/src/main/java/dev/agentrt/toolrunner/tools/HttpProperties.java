package dev.agentrt.toolrunner.tools;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrt.tools.http.*}: what {@code http_get} may fetch.
 *
 * @param allowedHosts host names (or IP literals) it may fetch from, compared exactly and case
 *     insensitively; empty: the tool is not offered
 * @param maxBytes a body longer than this is cut ({@code truncated: true})
 * @param maxRedirects redirects followed, each to an allowed host, before giving up
 * @param allowedAddresses addresses inside this network (loopback, private, link-local) it may
 *     connect to all the same, each exactly; none by default
 * @param allowedPorts ports it may connect to
 */
@ConfigurationProperties("agentrt.tools.http")
public record HttpProperties(
    @DefaultValue List<String> allowedHosts,
    @DefaultValue("262144") int maxBytes,
    @DefaultValue("5") int maxRedirects,
    @DefaultValue List<String> allowedAddresses,
    @DefaultValue({"80", "443"}) List<Integer> allowedPorts) {

  /** Only public addresses, on ports 80 and 443. */
  public HttpProperties(List<String> allowedHosts, int maxBytes, int maxRedirects) {
    this(allowedHosts, maxBytes, maxRedirects, List.of(), List.of(80, 443));
  }

  @ConstructorBinding
  public HttpProperties {
    allowedHosts = allowedHosts.stream().map(String::strip).filter(h -> !h.isEmpty()).toList();
    allowedAddresses =
        allowedAddresses.stream().map(String::strip).filter(a -> !a.isEmpty()).toList();
    allowedPorts = List.copyOf(allowedPorts);
    if (maxBytes < 1) {
      throw new IllegalArgumentException("agentrt.tools.http.max-bytes must be positive");
    }
  }
}
