package dev.agentrt.toolrunner.tools;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Which URLs {@code http_get} may fetch: http or https, no user info ({@code
 * http://allowed.com@evil.com}), and a host that is on the list exactly. An IP literal passes only
 * if that literal itself is listed; names are never resolved to compare addresses.
 */
final class HostAllowlist {

  private static final Pattern IPV4 = Pattern.compile("[0-9.]+");

  private final Set<String> hosts;

  HostAllowlist(List<String> hosts) {
    this.hosts = hosts.stream().map(h -> normalize(h)).collect(Collectors.toUnmodifiableSet());
  }

  boolean isEmpty() {
    return hosts.isEmpty();
  }

  /**
   * The URL, parsed, if it may be fetched.
   *
   * @throws ToolException saying why not
   */
  URI check(String url) {
    URI uri;
    try {
      uri = new URI(url.strip());
    } catch (URISyntaxException e) {
      throw refused(url, "not a valid URL (" + e.getReason() + ")");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw refused(url, "only http and https URLs can be fetched");
    }
    if (uri.getRawUserInfo() != null
        || (uri.getRawAuthority() != null && uri.getRawAuthority().contains("@"))) {
      throw refused(url, "URLs with user info are refused");
    }
    if (uri.getHost() == null) {
      throw refused(url, "the URL names no host");
    }
    String host = normalize(uri.getHost());
    if (!hosts.contains(host)) {
      throw refused(
          url,
          (isIpLiteral(host) ? "IP address " : "host ")
              + host
              + " is not allowed; allowed hosts: "
              + String.join(", ", hosts.stream().sorted().toList()));
    }
    return uri;
  }

  private static boolean isIpLiteral(String host) {
    return host.contains(":") || IPV4.matcher(host).matches();
  }

  private static String normalize(String host) {
    String h = host.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
  }

  private static ToolException refused(String url, String why) {
    return new ToolException(ErrorType.not_allowed, "cannot fetch '" + url + "': " + why);
  }
}
