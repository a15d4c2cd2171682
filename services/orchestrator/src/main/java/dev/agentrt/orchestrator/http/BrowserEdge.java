package dev.agentrt.orchestrator.http;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * What a web page the person visits must not make their browser do to the orchestrator:
 *
 * <ul>
 *   <li>reach it under a name it is not served as: a {@code Host} not in {@code
 *       agentrt.security.allowed-hosts} (besides localhost, 127.0.0.1 and [::1]) is {@code 421}, so
 *       DNS rebinding gets nowhere ({@code *} allows any);
 *   <li>change anything from another site: a request that is not a read ({@code GET}, {@code HEAD},
 *       {@code OPTIONS}) marked cross-site by the browser ({@code Sec-Fetch-Site}) or from another
 *       {@code Origin} is {@code 403};
 *   <li>send a body that is not JSON: {@code 415}, so no form or {@code text/plain} post (which a
 *       page may send anywhere without asking) runs an agent.
 * </ul>
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 1)
class BrowserEdge extends OncePerRequestFilter {

  private static final Set<String> LOCAL_NAMES = Set.of("localhost", "127.0.0.1", "[::1]");
  private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");

  private final Set<String> hosts;
  private final boolean anyHost;

  BrowserEdge(@Value("${agentrt.security.allowed-hosts:}") List<String> allowed) {
    this.anyHost = allowed.stream().anyMatch(h -> h.strip().equals("*"));
    this.hosts =
        Stream.concat(LOCAL_NAMES.stream(), allowed.stream().map(BrowserEdge::normal))
            .filter(h -> !h.isEmpty())
            .collect(Collectors.toUnmodifiableSet());
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String host = hostName(request.getHeader(HttpHeaders.HOST));
    if (!anyHost && (host == null || !hosts.contains(host))) {
      EdgeRefusal.write(
          request,
          response,
          HttpStatus.MISDIRECTED_REQUEST,
          "this server is not served as '"
              + request.getHeader(HttpHeaders.HOST)
              + "' (agentrt.security.allowed-hosts)",
          "unknown_host");
      return;
    }
    if (!READS.contains(request.getMethod())) {
      if (crossSite(request)) {
        EdgeRefusal.write(
            request,
            response,
            HttpStatus.FORBIDDEN,
            "requests that change something must come from this server's own pages",
            "cross_site");
        return;
      }
      if (!json(request)) {
        EdgeRefusal.write(
            request,
            response,
            HttpStatus.UNSUPPORTED_MEDIA_TYPE,
            "the request body must be JSON (Content-Type: application/json)",
            "unsupported_media_type");
        return;
      }
    }
    chain.doFilter(request, response);
  }

  private static boolean crossSite(HttpServletRequest request) {
    String site = request.getHeader("Sec-Fetch-Site");
    if ("cross-site".equals(site) || "same-site".equals(site)) {
      return true;
    }
    String origin = request.getHeader(HttpHeaders.ORIGIN);
    if (origin == null) {
      return false;
    }
    try {
      URI uri = URI.create(origin);
      String authority = uri.getRawAuthority();
      return authority == null || !authority.equalsIgnoreCase(request.getHeader(HttpHeaders.HOST));
    } catch (IllegalArgumentException malformed) {
      return true;
    }
  }

  /** No body at all, or a JSON one. */
  private static boolean json(HttpServletRequest request) {
    String type = request.getContentType();
    if (type == null) {
      return request.getContentLengthLong() <= 0
          && request.getHeader(HttpHeaders.TRANSFER_ENCODING) == null;
    }
    try {
      MediaType media = MediaType.parseMediaType(type);
      return media.isCompatibleWith(MediaType.APPLICATION_JSON)
          || "json".equals(media.getSubtypeSuffix());
    } catch (IllegalArgumentException malformed) {
      return false;
    }
  }

  /** {@code Example.COM:8080} → {@code example.com}; {@code [::1]:8080} → {@code [::1]}. */
  private static @Nullable String hostName(@Nullable String header) {
    if (header == null || header.isBlank()) {
      return null;
    }
    return normal(header);
  }

  private static String normal(String host) {
    String h = host.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? h : h.substring(0, end + 1);
    }
    int colon = h.indexOf(':');
    return colon < 0 ? h : h.substring(0, colon);
  }
}
